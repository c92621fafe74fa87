/**
 * JSON files as Datumaro reads them: parsed as Python does (ints and floats apart, so an attribute's
 * `str()` is CVAT's), and read through small accessors that fail as Datumaro's `_parse_field` does.
 */
import { PyDict, PyFloat, PyInt, type PythonJson } from '../../python-json';
import { PythonJsonError, parsePythonJson } from '../../python-json-parse';
import { ImportError } from './types';

export type Json = PythonJson;

const DATUMARO_ERRORS = 'datumaro.components.errors';

/** A dict's value, or undefined. */
export function get(d: Json | undefined, key: string): Json | undefined {
  if (!(d instanceof PyDict)) return undefined;
  for (let i = d.entries.length - 1; i >= 0; i--) {
    const e = d.entries[i] as [string, Json];
    if (e[0] === key) return e[1];
  }
  return undefined;
}

/** A dict's entries in order (`dict.items()`). */
const entries = (d: Json | undefined): [string, Json][] => (d instanceof PyDict ? d.entries : []);

export const num = (v: Json | undefined): number =>
  v instanceof PyInt ? Number(v.digits) : v instanceof PyFloat ? v.value : Number.NaN;

/** Datumaro's `MissingFieldError` of a field a format requires. */
export const missingField = (key: string) =>
  new ImportError(`${DATUMARO_ERRORS}.MissingFieldError`, `Missing annotation field '${key}'`);

/** `_parse_field(d, key, list)`. */
export function list(d: Json | undefined, key: string): Json[] {
  const v = get(d, key);
  if (v === undefined) throw missingField(key);
  if (!Array.isArray(v)) {
    throw new ImportError(
      `${DATUMARO_ERRORS}.InvalidFieldTypeError`,
      `Invalid annotation field '${key}' type '${typeName(v)}'. Expected <class 'list'>`,
    );
  }
  return v;
}

function typeName(v: Json): string {
  if (v === null) return "<class 'NoneType'>";
  if (typeof v === 'boolean') return "<class 'bool'>";
  if (typeof v === 'string') return "<class 'str'>";
  if (v instanceof PyInt) return "<class 'int'>";
  if (v instanceof PyFloat) return "<class 'float'>";
  if (v instanceof PyDict) return "<class 'dict'>";
  return "<class 'list'>";
}

/** A JSON file, or the error Datumaro's import fails with for a file that is none. */
export function parseJson(text: string, path: string): Json {
  try {
    return parsePythonJson(text);
  } catch (err) {
    if (!(err instanceof PythonJsonError)) throw err;
    throw new ImportError(
      `${DATUMARO_ERRORS}.DatasetImportError`,
      `Failed to import dataset from '${path}': ${err.message}`,
    );
  }
}

/** A dict's values as Datumaro's attributes (`str()` of each is what CVAT offers the label's specs). */
export const attributeMap = (d: Json | undefined) => new Map<string, unknown>(entries(d));
