/**
 * Not a handler: the entry of the child process that reads one untrusted PDF
 * for a worker (lib/pdf/sandbox.ts). The packaging bundles it beside every
 * function that reads PDFs; the local stack builds it with the handlers.
 */
import { servePdfReads } from '../../lib/pdf/sandbox-child';

servePdfReads();
