// The cases are shared with the other API version: the fixtures are the same objects (see llminferenceservice-cases.ts).
import { llmInferenceServiceCases } from './llminferenceservice-cases.ts';

llmInferenceServiceCases('v1alpha1');
