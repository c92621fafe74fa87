export {
  COCO_INSTANCES,
  createTrainingPipeline,
  readCocoInstances,
  type TrainingBox,
  type TrainingPipeline,
  type TrainingPipelineOptions,
  type TrainingReport,
  type TrainingSet,
} from './training-pipeline';
export { readZipEntry } from './zip';
