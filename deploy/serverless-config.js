/**
 * Reads serverless.yml as data, for the deployment tooling (the generated
 * alarms in deploy/iam.js) and the local stack (localstack/provision/provision.js), with
 * CloudFormation's short tags (`!Ref`, `!GetAtt`, …) in their long forms.
 * Serverless variables stay unresolved strings.
 */
const fs = require('node:fs');
const path = require('node:path');
const yaml = require('js-yaml');

const SERVERLESS_YML = path.join(__dirname, '..', 'serverless.yml');

const INTRINSICS = [
  'Base64',
  'Cidr',
  'FindInMap',
  'GetAtt',
  'GetAZs',
  'If',
  'ImportValue',
  'Join',
  'Select',
  'Split',
  'Sub',
  'Equals',
  'Not',
  'And',
  'Or',
  'Condition',
  'Ref',
];

// `!GetAtt X.Arn` becomes { 'Fn::GetAtt': ['X', 'Arn'] }, `!Ref X` becomes
// { Ref: 'X' }: the long forms CloudFormation itself uses.
const CFN_SCHEMA = yaml.DEFAULT_SCHEMA.extend(
  INTRINSICS.flatMap((name) =>
    /** @type {const} */ (['scalar', 'sequence', 'mapping']).map(
      (kind) =>
        new yaml.Type(`!${name}`, {
          kind,
          construct: (data) => {
            const key = name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`;
            if (name === 'GetAtt' && typeof data === 'string') {
              const dot = data.indexOf('.');
              return { [key]: [data.slice(0, dot), data.slice(dot + 1)] };
            }
            return { [key]: data };
          },
        }),
    ),
  ),
);

/** @returns {Record<string, any>} */
function loadServerlessConfig(file = SERVERLESS_YML) {
  return yaml.load(fs.readFileSync(file, 'utf8'), { schema: CFN_SCHEMA, filename: file });
}

/**
 * The resources serverless.yml declares itself. `resources:` is a list of
 * mappings there; the generated entry (`${file(./deploy/manifest.js):resources}`:
 * IAM roles and alarms, nothing an emulator runs) stays an unresolved string
 * and is skipped.
 *
 * @param {Record<string, any>} config
 * @returns {Record<string, any>}
 */
function declaredResources(config) {
  const parts = Array.isArray(config.resources) ? config.resources : [config.resources];
  /** @type {Record<string, any>} */
  const merged = {};
  for (const part of parts) if (part && typeof part === 'object') Object.assign(merged, part.Resources);
  return merged;
}

module.exports = { loadServerlessConfig, declaredResources };
