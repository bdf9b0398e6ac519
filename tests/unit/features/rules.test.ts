import { COMPONENT_DEFAULTS, resolveComponents } from '../../../lib/features/rules';

describe('resolveComponents', () => {
  it('takes the team override, then the global override, then the default', () => {
    expect(resolveComponents({}, {})).toEqual(COMPONENT_DEFAULTS);
    expect(resolveComponents({ training: true, enterprise: true }, { training: false })).toEqual({
      ...COMPONENT_DEFAULTS,
      training: false,
      enterprise: true,
    });
  });
});
