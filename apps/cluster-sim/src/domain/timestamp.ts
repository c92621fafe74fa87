/** RFC 3339 with microseconds, like the recorded responses (`2024-04-01T12:34:56.123456Z`). */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
