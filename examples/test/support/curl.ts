// The `curl` commands that `npm start` prints under "Try:", turned into the requests curl would send, so a
// test runs them exactly as printed (with fetch, on the loopback address only).

/** One printed `curl` command and the request it sends. */
export interface CurlRequest {
  command: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The commands of the "Try:" block: its indented `curl` lines, with `\` continuations joined. Notes in
 * parentheses are skipped; the first unindented line ends the block; any other line is an error, so a
 * new kind of step cannot go untested.
 */
export function tryCommands(output: string): string[] {
  const lines = output.split('\n');
  const start = lines.findIndex((line) => line.trim() === 'Try:');
  if (start < 0) throw new Error(`no "Try:" line in:\n${output}`);
  const commands: string[] = [];
  for (let i = start + 1; i < lines.length && /^\s/.test(lines[i] as string); i++) {
    let line = (lines[i] as string).trim();
    if (line.startsWith('(')) continue;
    if (!line.startsWith('curl ')) throw new Error(`not a curl command under "Try:": ${line}`);
    while (line.endsWith('\\') && i + 1 < lines.length) {
      line = `${line.slice(0, -1).trimEnd()} ${(lines[++i] as string).trim()}`;
    }
    commands.push(line);
  }
  return commands;
}

/** A shell command line's words: single and double quotes, backslash escapes, a trailing `# comment`. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    if (ch === "'" || ch === '"') {
      const end = command.indexOf(ch, i + 1);
      if (end < 0) throw new Error(`unterminated ${ch} in: ${command}`);
      const quoted = command.slice(i + 1, end);
      if (ch === '"' && /[$`\\]/.test(quoted)) throw new Error(`shell expansion in "${quoted}": ${command}`);
      word = (word ?? '') + quoted;
      i = end;
    } else if (ch === '\\') {
      word = (word ?? '') + (command[++i] ?? '');
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (ch === '#' && word === null) {
      break;
    } else if (/[$`;&|<>*?[\]{}()]/.test(ch)) {
      // Unquoted, these would make the shell do something other than pass the text to curl.
      throw new Error(`unquoted shell character ${ch} in: ${command}`);
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** What curl sends for a command made of -X, -H, -d and -u options and one URL (anything else throws). */
export function curlRequest(command: string): CurlRequest {
  const [program, ...args] = shellWords(command);
  if (program !== 'curl') throw new Error(`not a curl command: ${command}`);
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const option = args[i] as string;
    const value = () => {
      const v = args[++i];
      if (v === undefined) throw new Error(`${option} without a value in: ${command}`);
      return v;
    };
    if (option === '-X' || option === '--request') method = value();
    else if (option === '-H' || option === '--header') {
      const header = value();
      const colon = header.indexOf(':');
      if (colon <= 0) throw new Error(`bad header "${header}" in: ${command}`);
      headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (option === '-d' || option === '--data') {
      body = value();
      if (body.startsWith('@')) throw new Error(`-d @file is not supported: ${command}`);
    } else if (option === '-u' || option === '--user') {
      const credentials = value();
      if (!credentials.includes(':')) throw new Error(`-u without a password makes curl prompt: ${command}`);
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    } else if (option.startsWith('-')) throw new Error(`unsupported curl option ${option} in: ${command}`);
    else if (url !== undefined) throw new Error(`two URLs in: ${command}`);
    else url = option;
  }
  if (url === undefined) throw new Error(`no URL in: ${command}`);
  // curl's -d: POST unless -X says otherwise, form-encoded unless a Content-Type header says otherwise.
  if (body !== undefined && !('content-type' in headers)) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  return { command, method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
}

/** Sends a printed command's request; only to 127.0.0.1, and bounded in time. */
export async function send(
  request: CurlRequest,
  timeoutMs = 10_000,
): Promise<{ status: number; text: string; json: unknown }> {
  const { hostname } = new URL(request.url);
  if (hostname !== '127.0.0.1') throw new Error(`refusing to send to ${hostname}: ${request.command}`);
  const res = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json };
}
