import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared';

export default defineConfig(
  libraryBuild({
    index: 'src/index.ts',
    'webhook-events': 'src/webhook-events.ts',
    'event-log': 'src/event-log.ts',
    requests: 'src/requests.ts',
    'request-schemas': 'src/request-schemas.ts',
  }),
);
