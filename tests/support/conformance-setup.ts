/**
 * The service project's check that every answer matches the API document (tests/support/openapi-conformance.ts):
 * a test file whose answers drifted fails after its tests, with the list.
 */
import { checkAnswersAgainstDocument, conformanceReport } from './openapi-conformance';

checkAnswersAgainstDocument();

afterAll(() => {
  const report = conformanceReport();
  if (report) throw new Error(report);
});
