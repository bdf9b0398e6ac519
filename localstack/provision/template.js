/**
 * What serverless.yml's resource declarations mean, for local provisioning
 * (deploy/serverless-config.js reads the file with CloudFormation's short
 * tags): the serverless variable resolver (`${self:…}`, `${sls:stage}`, `${opt:…}`,
 * `${env:…}` with defaults), evaluation of intrinsics over the resources
 * created so far, and the order that creates each resource after those it
 * refers to.
 */

const ACCOUNT_ID = '000000000000';

/**
 * @typedef {Record<string, any>} Json
 * @typedef {{ type: string, ref: string, attributes: Record<string, string> }} Created
 * @typedef {{ stage: string, region: string, env: Record<string, string | undefined> }} Options
 */

// ---------------------------------------------------------------------------
// serverless.yml: serverless variables
// ---------------------------------------------------------------------------

// `${source:address, fallback}` with a serverless source; `${AWS::Region}`
// and `${Logical.Attr}` inside !Sub are CloudFormation's and are left alone.
const INNERMOST_VARIABLE = /\$\{([^${}]+)\}/g;
const SERVERLESS_SOURCE = /^\s*[a-zA-Z]+(?:\([^)]*\))?:(?!:)/;

/**
 * Resolves serverless variables on demand: only the values provisioning
 * reads are resolved, so `${file(...)}` elsewhere in the file is never run.
 *
 * @param {Json} config
 * @param {Options} options
 */
function createVariableResolver(config, { stage, region, env }) {
  /**
   * @param {string} body e.g. "self:custom.names.table" or "env:X, 'default'"
   * @param {string[]} stack references being resolved, to report cycles
   * @returns {any}
   */
  const resolveReference = (body, stack) => {
    const [reference, fallback] = splitFallback(body);
    if (stack.includes(reference)) {
      throw new Error(`serverless.yml: circular variable \${${[...stack, reference].join(' -> ')}}`);
    }
    const value = lookup(reference, [...stack, reference]);
    if (value !== undefined && value !== null) return value;
    if (fallback !== undefined) return resolveFallback(fallback, stack);
    throw new Error(`serverless.yml: variable \${${body}} has no value and no default`);
  };

  /** @param {string} fallback @param {string[]} stack @returns {any} */
  const resolveFallback = (fallback, stack) => {
    const quoted = /^(['"])(.*)\1$/.exec(fallback);
    if (quoted) return quoted[2];
    if (SERVERLESS_SOURCE.test(fallback)) return resolveReference(fallback, stack);
    if (/^-?\d+(\.\d+)?$/.test(fallback)) return Number(fallback);
    if (fallback === 'true' || fallback === 'false') return fallback === 'true';
    return fallback;
  };

  /** @param {string} reference @param {string[]} stack */
  const lookup = (reference, stack) => {
    const colon = reference.indexOf(':');
    const source = reference.slice(0, colon);
    const address = reference.slice(colon + 1).trim();
    switch (source) {
      case 'self':
        return resolve(address === '' ? config : getPath(config, address), stack);
      case 'sls':
        if (address === 'stage') return stage;
        break;
      case 'opt':
        if (address === 'stage') return stage;
        if (address === 'region') return region;
        return undefined;
      case 'env':
        return env[address];
      case 'aws':
        if (address === 'region') return region;
        if (address === 'accountId') return ACCOUNT_ID;
        break;
    }
    throw new Error(`serverless.yml: \${${reference}} is not supported by localstack/provision/provision.js`);
  };

  /**
   * @param {unknown} value
   * @param {string[]} [stack]
   * @returns {any}
   */
  const resolve = (value, stack = []) => {
    if (Array.isArray(value)) return value.map((item) => resolve(item, stack));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, stack)]));
    }
    if (typeof value !== 'string') return value;

    /** @type {unknown} */
    let current = value;
    let previous;
    // Innermost first, so `${self:custom.${sls:stage}}` works.
    while (typeof current === 'string' && current !== previous) {
      previous = current;
      const whole = /^\$\{([^${}]+)\}$/.exec(current);
      if (whole && SERVERLESS_SOURCE.test(whole[1])) {
        // A lone variable keeps its value's type (objects, numbers).
        current = resolveReference(whole[1], stack);
      } else {
        current = current.replace(INNERMOST_VARIABLE, (match, body) =>
          SERVERLESS_SOURCE.test(body) ? String(resolveReference(body, stack)) : match,
        );
      }
    }
    return current;
  };

  return resolve;
}

/**
 * Splits "env:X, 'a, b'" into ["env:X", "'a, b'"] at the first comma outside quotes.
 *
 * @param {string} body
 * @returns {[string, string | undefined]}
 */
function splitFallback(body) {
  let quote = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === ',') {
      return [body.slice(0, i).trim(), body.slice(i + 1).trim()];
    }
  }
  return [body.trim(), undefined];
}

/** @param {Json} object @param {string} dotted */
function getPath(object, dotted) {
  return dotted.split('.').reduce((node, key) => (node == null ? undefined : node[key]), object);
}

// ---------------------------------------------------------------------------
// CloudFormation intrinsics over the resources created so far
// ---------------------------------------------------------------------------

/**
 * @param {unknown} value
 * @param {Map<string, Created>} created
 * @param {Options} options
 * @returns {any}
 */
function evaluate(value, created, options) {
  if (Array.isArray(value)) return value.map((item) => evaluate(item, created, options));
  if (!value || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const v = /** @type {Json} */ (value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) {
    const arg = evaluate(v[keys[0]], created, options);
    switch (keys[0]) {
      case 'Ref':
        return refValue(arg, created, options);
      case 'Fn::GetAtt': {
        // long form accepts "X.Arn" as well as ["X", "Arn"]
        const [name, attribute] = Array.isArray(arg)
          ? arg
          : [arg.slice(0, arg.indexOf('.')), arg.slice(arg.indexOf('.') + 1)];
        return getAtt(name, attribute, created);
      }
      case 'Fn::Join':
        return arg[1].join(arg[0]);
      case 'Fn::Select':
        return arg[1][Number(arg[0])];
      case 'Fn::Split':
        return arg[1].split(arg[0]);
      case 'Fn::Sub': {
        const [template, vars = {}] = Array.isArray(arg) ? arg : [arg];
        return template.replace(/\$\{([^}!]+)\}/g, (/** @type {string} */ _, /** @type {string} */ name) => {
          if (name in vars) return vars[name];
          const dot = name.indexOf('.');
          return dot === -1 || name.startsWith('AWS::')
            ? refValue(name, created, options)
            : getAtt(name.slice(0, dot), name.slice(dot + 1), created);
        });
      }
      default:
        throw new Error(`${keys[0]} is not supported by localstack/provision/provision.js`);
    }
  }
  return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, evaluate(item, created, options)]));
}

/** @param {string} name @param {Map<string, Created>} created @param {Options} options */
function refValue(name, created, { region }) {
  const pseudo = {
    'AWS::Region': region,
    'AWS::AccountId': ACCOUNT_ID,
    'AWS::Partition': 'aws',
    'AWS::URLSuffix': 'amazonaws.com',
  };
  if (name in pseudo) return pseudo[/** @type {keyof typeof pseudo} */ (name)];
  const resource = created.get(name);
  if (!resource) throw new Error(`Ref ${name}: no such resource (or not created yet)`);
  return resource.ref;
}

/** @param {string} name @param {string} attribute @param {Map<string, Created>} created */
function getAtt(name, attribute, created) {
  const resource = created.get(name);
  if (!resource) throw new Error(`GetAtt ${name}.${attribute}: no such resource (or not created yet)`);
  if (!(attribute in resource.attributes)) {
    throw new Error(`GetAtt ${name}.${attribute}: ${resource.type} attribute not available locally`);
  }
  return resource.attributes[attribute];
}

/**
 * Logical ids a value refers to through Ref, GetAtt or Sub.
 *
 * @param {unknown} value
 * @param {Set<string>} [ids]
 */
function dependenciesOf(value, ids = new Set()) {
  if (Array.isArray(value)) {
    for (const item of value) dependenciesOf(item, ids);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'Ref' && typeof item === 'string') ids.add(item);
      else if (key === 'Fn::GetAtt') ids.add(Array.isArray(item) ? item[0] : String(item).split('.')[0]);
      else if (key === 'Fn::Sub') {
        const template = Array.isArray(item) ? item[0] : item;
        for (const [, name] of String(template).matchAll(/\$\{([^}!.]+)[^}]*\}/g)) ids.add(name);
      }
      dependenciesOf(item, ids);
    }
  }
  return ids;
}

/**
 * Logical ids in creation order: everything a resource refers to (e.g. the
 * DLQ behind `!GetAtt PurgeDeadLetterQueue.Arn`) is created before it.
 *
 * @param {Record<string, Json>} resources
 */
function creationOrder(resources) {
  /** @type {string[]} */
  const order = [];
  const state = new Map();
  /** @param {string} id @param {string[]} trail */
  const visit = (id, trail) => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') throw new Error(`Circular dependency: ${[...trail, id].join(' -> ')}`);
    state.set(id, 'visiting');
    const deps = dependenciesOf(resources[id].Properties);
    for (const dep of [].concat(resources[id].DependsOn || [])) deps.add(dep);
    for (const dep of deps) if (dep in resources) visit(dep, [...trail, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of Object.keys(resources)) visit(id, []);
  return order;
}

module.exports = { createVariableResolver, evaluate, creationOrder };
