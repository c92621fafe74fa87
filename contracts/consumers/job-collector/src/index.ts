export {
  type CollectorOutcome,
  createJobCollector,
  type JobCollector,
  type JobCollectorOptions,
  type JobSummary,
} from './job-collector';
