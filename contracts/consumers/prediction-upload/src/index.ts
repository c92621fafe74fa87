export {
  createPredictionUploader,
  type PredictionFile,
  type PredictionUploader,
  type PredictionUploaderOptions,
  type UploadReport,
} from './prediction-upload';
