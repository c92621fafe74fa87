/**
 * Python's conversions as CVAT's importers call them on text (`int(...)`, `float(...)`, `dict[key]`),
 * with the exceptions they raise, so a malformed file fails with the text CVAT's worker shows.
 */
import { pyFixed } from '../../exports/py-format';
import { pythonRepr } from '../../python-json';
import { ImportError } from './types';

const keyError = (key: string) => new ImportError('KeyError', pythonRepr(key));

/** `d[key]` of an element's attributes or a parsed object. */
export function req(attrib: Record<string, string>, key: string): string {
  const v = attrib[key];
  if (v === undefined) throw keyError(key);
  return v;
}

/** `float(text)`. */
export function pyFloat(text: string): number {
  const t = text.trim().replace(/_/g, '');
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return Number(t);
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return Number.NaN;
  throw new ImportError('ValueError', `could not convert string to float: ${pythonRepr(text)}`);
}

/** `int(text)`. */
export function pyInt(text: string): number {
  const t = text.trim().replace(/(\d)_(?=\d)/g, '$1');
  if (/^[+-]?\d+$/.test(t)) return Number(t);
  throw new ImportError('ValueError', `invalid literal for int() with base 10: ${pythonRepr(text)}`);
}

/** `datumaro.util.cast(value, int)`: the int, or undefined when it is not one. */
export function castInt(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    return pyInt(text);
  } catch {
    return undefined;
  }
}

/** `float("{:.2f}".format(v))`: CVAT's rounding of an ellipse's corner. */
export const fixed2 = (v: number) => Number(pyFixed(v, 2));
