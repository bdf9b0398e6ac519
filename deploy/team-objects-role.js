/**
 * The team-objects role: the only way the public functions whose code asks
 * for a team's S3 client (lib/blob/team-credentials.ts) reach objects under
 * teams/, one team per session (the session tag `team`). Built by
 * deploy/iam.js with the other generated roles.
 */

const getAtt = (id, attribute) => ({ 'Fn::GetAtt': [id, attribute] });
const sub = (text) => ({ 'Fn::Sub': text });
const allow = (Action, Resource) => ({ Effect: 'Allow', Action, Resource });

/** The role public functions assume, tagged with one team, to reach that team's objects (lib/blob/team-credentials.ts). */
const TEAM_OBJECTS_ROLE = 'TeamObjectsRole';
const TEAM_TAG = 'team';
/** A session carries exactly one tag, `team`, and it is not empty. */
const TEAM_TAG_CONDITION = {
  StringLike: { [`aws:RequestTag/${TEAM_TAG}`]: '?*' },
  'ForAllValues:StringEquals': { 'aws:TagKeys': [TEAM_TAG] },
};
/** Lambda's own role assuming another is role chaining: an hour at most. */
const TEAM_SESSION_SECONDS = 3600;

/**
 * The team-objects role's name and ARN, fixed so that the public roles can
 * name it without a reference (its trust policy names them: a reference
 * both ways would be a cycle).
 */
const teamObjectsRoleName = (service, stage) => `${service}-${stage}-team-objects`;
const teamObjectsRoleArn = (service, stage) =>
  sub(`arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${teamObjectsRoleName(service, stage)}`);

/** teams/*\/claims/*\/insured/* → <bucket ARN>/teams/${aws:PrincipalTag/team}/claims/*\/insured/* ("${!" is Fn::Sub's literal "${"). */
const teamObjectArn = (pattern) =>
  sub(`\${MediaBucket.Arn}/${pattern.replace(/^teams\/\*\//, `teams/\${!aws:PrincipalTag/${TEAM_TAG}}/`)}`);

/**
 * The team-objects role: assumable only by the roles of the public functions
 * whose code asks for a team's client, with exactly one session tag `team`;
 * each teams/*\/… pattern they use becomes the same pattern under
 * teams/${aws:PrincipalTag/team}/, with the actions the functions using that
 * pattern need. No listing, no other prefix.
 */
function teamObjectsRole({ service, stage, profiles }) {
  const users = Object.keys(profiles)
    .filter((name) => profiles[name].access?.teamObjects)
    .sort();
  if (!users.length) return {};
  const actionsByPattern = new Map();
  for (const name of users) {
    const { actions, patterns } = profiles[name].access.teamObjects;
    for (const pattern of patterns) {
      if (!actionsByPattern.has(pattern)) actionsByPattern.set(pattern, new Set());
      for (const action of actions) actionsByPattern.get(pattern).add(action);
    }
  }
  const patternsByActions = new Map();
  for (const [pattern, actions] of [...actionsByPattern].sort(([a], [b]) => a.localeCompare(b))) {
    const key = [...actions].sort().join(',');
    if (!patternsByActions.has(key)) patternsByActions.set(key, []);
    patternsByActions.get(key).push(pattern);
  }
  const statements = [...patternsByActions].map(([actions, patterns]) =>
    allow(actions.split(','), patterns.map(teamObjectArn)),
  );
  return {
    [TEAM_OBJECTS_ROLE]: {
      Type: 'AWS::IAM::Role',
      Properties: {
        RoleName: teamObjectsRoleName(service, stage),
        MaxSessionDuration: TEAM_SESSION_SECONDS,
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Principal: { AWS: [...new Set(users.map((name) => profiles[name].role))].map((r) => getAtt(r, 'Arn')) },
              Action: ['sts:AssumeRole', 'sts:TagSession'],
              Condition: TEAM_TAG_CONDITION,
            },
          ],
        },
        Policies: [
          {
            PolicyName: `${service}-${stage}-${TEAM_OBJECTS_ROLE}`,
            PolicyDocument: { Version: '2012-10-17', Statement: statements },
          },
        ],
      },
    },
  };
}

module.exports = { TEAM_OBJECTS_ROLE, TEAM_TAG_CONDITION, teamObjectsRole, teamObjectsRoleArn };
