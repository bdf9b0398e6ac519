/** The claim details both platforms ask of a claim before it is sent (a test's or a benchmark's claim). */
export const SENDABLE_CLAIM_DETAILS = {
  insured_name: 'Pat Insured',
  loss_type: 'Water Damage',
  coverage_type: 'RCV',
  claim_type: 'Residential',
  zip_code: '90210',
  adjuster_name: 'Ada Adjuster',
};
