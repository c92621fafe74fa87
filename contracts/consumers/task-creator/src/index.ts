export {
  createTaskCreator,
  type TaskCreator,
  type TaskCreatorOptions,
  type TaskData,
  type TaskDataReport,
} from './task-creator';
