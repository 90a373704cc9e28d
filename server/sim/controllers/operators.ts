/** Every framework operator of the simulation, in one list (index.ts registers them). */

import type { Controller } from './runtime.ts';

export function operatorControllers(): Controller[] {
  return [];
}
