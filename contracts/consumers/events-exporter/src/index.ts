export { EVENT_COLUMNS, type EventColumn, type EventRow, parseCsv, parseEventLog } from './csv';
export {
  createEventsExporter,
  type EventFilters,
  type EventLog,
  type EventsExporter,
  type EventsExporterOptions,
  type ExportReport,
  type ExportStatus,
  type LegacyPoll,
} from './events-exporter';
