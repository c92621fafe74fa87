/** The longest pattern the control plane takes (fault rule matchers, journal filters). */
export const MAX_GLOB_LENGTH = 1024;

/** A compiled glob: whether a text matches it. */
export type GlobMatcher = (text: string) => boolean;

/** One step of a compiled glob: a literal character, `?`, `*` (within a segment) or `**` (across). */
type Token = { kind: 'char'; ch: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'globstar' };

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*') {
      const globstar = pattern[i + 1] === '*';
      if (globstar) while (pattern[i + 1] === '*') i++;
      const kind = globstar ? 'globstar' : 'star';
      const last = tokens[tokens.length - 1];
      // Adjacent stars collapse into one: a run matches what its widest member matches.
      if (last?.kind === 'star' || last?.kind === 'globstar') {
        if (kind === 'globstar') tokens[tokens.length - 1] = { kind };
      } else tokens.push({ kind });
    } else if (ch === '?') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', ch });
  }
  return tokens;
}

/**
 * Compiles a glob: `*` matches within one `/`-separated segment, `**` across segments, `?` one character.
 * A pattern without wildcards compares as a plain string. Callers compile once (a fault rule when it is
 * added, a journal filter per query) and keep the matcher where they keep the pattern, so no cache lives
 * outside the world that owns the pattern.
 *
 * Matching runs the pattern as a set of positions advanced one character at a time (no backtracking), so
 * it takes at most pattern length × text length steps whatever the pattern: a pattern posted to the
 * control plane such as `*a*a*a*a*a*a*a*a*a*a*c` cannot stall the process the way a regular expression
 * would.
 *
 * @example compileGlob('projects/*\/locations/*\/clusters/c1')('projects/p/locations/us/clusters/c1') // true
 */
export function compileGlob(pattern: string): GlobMatcher {
  if (!/[*?]/.test(pattern)) return (text) => text === pattern;
  const tokens = tokenize(pattern);
  const end = tokens.length;
  return (text) => {
    let current = new Uint8Array(end + 1);
    let next = new Uint8Array(end + 1);
    // A star may match nothing: reaching a star's position also reaches the position after it.
    const reach = (set: Uint8Array, at: number) => {
      let i = at;
      while (i <= end && set[i] === 0) {
        set[i] = 1;
        const t = tokens[i];
        if (t === undefined || (t.kind !== 'star' && t.kind !== 'globstar')) break;
        i++;
      }
    };
    reach(current, 0);
    for (let c = 0; c < text.length; c++) {
      const ch = text[c] as string;
      next.fill(0);
      let alive = false;
      for (let i = 0; i < end; i++) {
        if (current[i] === 0) continue;
        const t = tokens[i] as Token;
        if (t.kind === 'globstar' || (t.kind === 'star' && ch !== '/')) {
          reach(next, i);
          alive = true;
        } else if ((t.kind === 'one' && ch !== '/') || (t.kind === 'char' && t.ch === ch)) {
          reach(next, i + 1);
          alive = true;
        }
      }
      if (!alive) return false;
      [current, next] = [next, current];
    }
    return current[end] === 1;
  };
}

/**
 * Matches `text` against a glob once (compiling it each call: for a pattern used repeatedly, keep
 * {@link compileGlob}'s matcher instead).
 *
 * @example globMatch('projects/*\/locations/*\/clusters/c1', 'projects/p/locations/us/clusters/c1') // true
 */
export function globMatch(pattern: string, text: string): boolean {
  return compileGlob(pattern)(text);
}
