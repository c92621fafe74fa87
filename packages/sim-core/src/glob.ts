const cache = new Map<string, RegExp>();

/**
 * Matches `text` against a glob: `*` matches within one `/`-separated segment, `**` across segments,
 * `?` one character. Used for resource names and paths in fault rules and journal filters.
 *
 * @example globMatch('projects/*\/locations/*\/clusters/c1', 'projects/p/locations/us/clusters/c1') // true
 */
export function globMatch(pattern: string, text: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === text;
  let re = cache.get(pattern);
  if (!re) {
    let src = '';
    for (let i = 0; i < pattern.length; i++) {
      const ch = pattern[i] as string;
      if (ch === '*') {
        if (pattern[i + 1] === '*') {
          src += '.*';
          i++;
        } else src += '[^/]*';
      } else if (ch === '?') src += '[^/]';
      else src += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    re = new RegExp(`^${src}$`);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, re);
  }
  return re.test(text);
}
