/**
 * `DataSerializer.validate_remote_files` (CVAT 2.73, `engine/serializers.py`): every `remote_files`
 * entry must be an http(s) URL with a host, else the data request is a 400 before anything is queued.
 */
import { pythonRepr } from '../python-json';

/** What `urllib.parse.urlsplit` drops first: leading C0 controls and spaces; tabs and newlines anywhere. */
function cleaned(url: string): string {
  let start = 0;
  while (start < url.length && url.charCodeAt(start) <= 0x20) start++;
  return url.slice(start).replace(/[\t\r\n]/g, '');
}

/**
 * True when `urlparse(url)` has scheme `http` or `https` (any case: the scheme is lowercased) and a
 * non-empty netloc (what follows `//` up to `/`, `?` or `#`).
 */
function isHttpUrl(url: string): boolean {
  const m = /^(https?):\/\/([^/?#]*)/i.exec(cleaned(url));
  return m !== null && (m[2] ?? '') !== '';
}

/**
 * The serializer's errors for `remote_files` (`["'ftp://x': remote_files entries must be http(s)
 * URLs."]`, one per bad entry, the URL as Python's `repr`), or undefined when every entry is one.
 * Entries that are not strings are left to the field's own reading.
 */
export function remoteFilesErrors(files: unknown): string[] | undefined {
  if (!Array.isArray(files)) return undefined;
  const errors = files
    .filter((url): url is string => typeof url === 'string' && !isHttpUrl(url))
    .map((url) => `${pythonRepr(url)}: remote_files entries must be http(s) URLs.`);
  return errors.length > 0 ? errors : undefined;
}
