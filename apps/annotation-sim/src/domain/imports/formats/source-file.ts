/**
 * The uploaded file as CVAT's importers open it: `zipfile.is_zipfile` and the archive's members (the
 * temp directory it is extracted to), and the refusal of a file in which the format's detector finds no
 * dataset (`detect_dataset` raising `CvatDatasetNotFoundError`).
 */
import { openZip, ZipReadError } from '../zip-read';
import { ImportError, type ImportFile } from './types';

/** `zipfile.is_zipfile`: whether an end-of-central-directory record is there. */
export function isZip(file: ImportFile): boolean {
  try {
    openZip(file.bytes);
    return true;
  } catch {
    return false;
  }
}

/** An extracted archive: its files (directories left out) by path, read when asked for. */
export interface Extracted {
  paths: string[];
  text(path: string): string;
  bytes(path: string): Buffer;
}

/** `zipfile.ZipFile(src).extractall(temp_dir)`: the archive's files; zipfile's errors as CVAT shows them. */
export function extract(file: ImportFile): Extracted {
  try {
    const zip = openZip(file.bytes);
    const paths = zip.names().filter((n) => !n.endsWith('/'));
    // Reading every member now is what `extractall` does: a broken member fails the import here.
    const data = new Map(paths.map((p) => [p.replace(/^\.?\//, ''), zip.read(p)]));
    return {
      paths: [...data.keys()],
      text: (p) => (data.get(p) ?? Buffer.alloc(0)).toString('utf8'),
      bytes: (p) => data.get(p) ?? Buffer.alloc(0),
    };
  } catch (err) {
    if (err instanceof ZipReadError) throw new ImportError(err.exceptionClass, err.message);
    throw err;
  }
}

/** A file's depth below the root (`a.xml` 0, `x/a.xml` 1): Datumaro's detector looks 4 levels down. */
export const depthOf = (path: string) => path.split('/').length - 1;

const DOCS = 'https://docs.cvat.ai/docs//manual/advanced/formats/';

/**
 * `CvatDatasetNotFoundError`'s text: the format's docs link, then the detector's message after its first
 * colon, a missing file's requirement reworded (`_clean_display_message`).
 */
function datasetNotFound(formatName: string, message: string): ImportError {
  let m = message.replace(/^.*?:/, '');
  const requirement = 'dataset must contain a file matching pattern';
  if (m.includes(requirement))
    m = `Dataset must contain a file:${m.replace(requirement, '').replace(/\n/g, '')}`;
  const docs = `Check [format docs](${DOCS}format-${formatName.replace(/_/g, '-')})`;
  return new ImportError(
    'cvat.apps.dataset_manager.bindings.CvatDatasetNotFoundError',
    `${docs}. ${m.replace(/ +/g, ' ')}`,
  );
}

/** Datumaro's unmet requirement of a file of `pattern`. */
export const missingFile = (formatName: string, pattern: string) =>
  datasetNotFound(formatName, `dataset must contain a file matching pattern "${pattern}"`);

/**
 * Where CVAT's worker extracts an upload (a `TemporaryDirectory` under its data root): the path Datumaro's
 * "not found" names. The simulator's stand-in, as the real one is random.
 */
const IMPORT_DIR = '/home/django/data/tmp/import';

/**
 * An archive in which Datumaro's reader (not the detector: COCO's single-task readers skip detection)
 * finds no dataset: `DatasetNotFoundError` as `import_*_annotations` re-raises it, a `CvatImportError`
 * (CVAT's `test_check_import_error_on_wrong_file_structure` expects "Failed to find dataset" for COCO).
 */
export const datasetNotFoundAt = () =>
  new ImportError(
    'cvat.apps.dataset_manager.bindings.CvatImportError',
    `Failed to find dataset at '${IMPORT_DIR}'`,
  );
