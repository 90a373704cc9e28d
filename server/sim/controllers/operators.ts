/** Every framework operator of the simulation, in one list (index.ts registers them). */

import { AppWrapperController } from './appwrapper.ts';
import { dynamoControllers } from './dynamo.ts';
import { groveControllers } from './grove.ts';
import { JobSetController } from './jobset.ts';
import { knativeControllers } from './knative.ts';
import { InferenceServiceController } from './kserve.ts';
import { LeaderWorkerSetController } from './leaderworkerset.ts';
import { LLMInferenceServiceController } from './llmisvc.ts';
import { MilvusController } from './milvus.ts';
import { MPIJobController } from './mpijob.ts';
import { NIMCacheController } from './nimcache.ts';
import { NIMServiceController } from './nimservice.ts';
import { RayClusterController } from './raycluster.ts';
import { RayJobController } from './rayjob.ts';
import { RayServiceController } from './rayservice.ts';
import type { Controller } from './runtime.ts';
import { SandboxController } from './sandbox.ts';
import { SparkApplicationController } from './sparkapplication.ts';
import { trainingOperatorControllers } from './training-frameworks.ts';
import { TrainJobController } from './trainjob.ts';
import { VolcanoJobController, VolcanoPodGroupController } from './volcano-job.ts';

export function operatorControllers(): Controller[] {
  return [
    new JobSetController(),
    ...trainingOperatorControllers(),
    new MPIJobController(),
    new TrainJobController(),
    new RayClusterController(),
    new RayJobController(),
    new RayServiceController(),
    new LeaderWorkerSetController(),
    ...knativeControllers(),
    new InferenceServiceController(),
    new LLMInferenceServiceController(),
    new SandboxController(),
    new NIMServiceController(),
    new NIMCacheController(),
    new MilvusController(),
    new SparkApplicationController(),
    ...groveControllers(),
    ...dynamoControllers(),
    new AppWrapperController(),
    new VolcanoJobController(),
    new VolcanoPodGroupController(),
  ];
}
