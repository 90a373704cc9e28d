/** resource.Quantity as the API server parses, compares and prints it: shared with the engine (lib/quantity). */
export * from '../../../../lib/quantity/quantity.ts';
