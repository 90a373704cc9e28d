/** Kubernetes resource quantities, exactly as the API server reads them (shared by the engine and the simulated cluster). */
export { parseQuantity, signOf, compareQuantities, quantityString, type Quantity } from './quantity.ts';
export { deviceCount, type DeviceCount } from './devices.ts';
