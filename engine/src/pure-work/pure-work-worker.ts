// Entry of the pure-work worker threads (see pure-work.ts; bundled as engine-pure-work.js for the desktop app).
import { serveTasks } from '../platform/worker-tasks';
import { pureWorkTasks } from './pure-work-tasks';

serveTasks(pureWorkTasks);
