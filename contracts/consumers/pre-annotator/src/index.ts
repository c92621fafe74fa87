export {
  createPreAnnotator,
  type PreAnnotationReport,
  type PreAnnotator,
  type PreAnnotatorOptions,
  type Prediction,
} from './pre-annotator';
