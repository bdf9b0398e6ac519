/**
 * Loads pdf.js (the legacy build, which runs on Node) once per process, with
 * its worker in this thread: a Lambda has no use for a second thread, and a
 * worker thread would need a file URL that bundles do not keep. Setting
 * `globalThis.pdfjsWorker` before the first document makes pdf.js take the
 * worker's message handler from there instead of importing `workerSrc`.
 *
 * pdf.js finds @napi-rs/canvas itself (for DOMMatrix, Path2D and its canvas
 * factory); its font, colour-profile and wasm data are read from the
 * package directory.
 */
import path from 'node:path';

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<Pdfjs> | undefined;

/**
 * Imported by absolute path: on Lambda pdf.js comes from a layer, which
 * `require.resolve` finds through NODE_PATH while an ES module import of the
 * bare name would not.
 */
const importResolved = (specifier: string): Promise<unknown> => import(require.resolve(specifier));

export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= (async () => {
    const worker = await importResolved('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return (await importResolved('pdfjs-dist/legacy/build/pdf.mjs')) as Pdfjs;
  })();
  return loading;
}

/** The directories pdf.js reads its data from (paths with a trailing separator, as it expects). */
export function pdfjsDataDirs(): { standardFontDataUrl: string; wasmUrl: string; iccUrl: string; cMapUrl: string } {
  const root = path.dirname(require.resolve('pdfjs-dist/package.json'));
  const dir = (name: string) => `${path.join(root, name)}${path.sep}`;
  return {
    standardFontDataUrl: dir('standard_fonts'),
    wasmUrl: dir('wasm'),
    iccUrl: dir('iccs'),
    cMapUrl: dir('cmaps'),
  };
}
