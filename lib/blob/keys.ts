/**
 * Object keys in the media bucket: everything a claim owns lives under its
 * prefix, so deleting a claim deletes one prefix.
 *   teams/<team_id>/claims/<claim_id>/jobs/<job_id>/...
 *   teams/<team_id>/claims/<claim_id>/exports/<export_id>.<xlsx|csv|pdf>
 *   team_settings/<team_id>/automation_settings.json, prompt_settings.json
 */
export const blobKeys = {
  claimPrefix: (teamId: string, claimId: string) => `teams/${teamId}/claims/${claimId}/`,
  jobPrefix: (teamId: string, claimId: string, jobId: string) => `teams/${teamId}/claims/${claimId}/jobs/${jobId}/`,
  claimExport: (teamId: string, claimId: string, exportId: string, extension: string) =>
    `teams/${teamId}/claims/${claimId}/exports/${exportId}.${extension}`,
  teamSettings: (teamId: string, file: 'automation_settings.json' | 'prompt_settings.json') =>
    `team_settings/${teamId}/${file}`,
};
