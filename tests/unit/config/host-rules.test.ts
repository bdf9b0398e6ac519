/**
 * Covers: lib/config/host-rules.ts (the grammar and meaning of CAPTURE_SOURCE_DOWNLOAD_HOSTS) and its check at
 * start-up (lib/config/schema.ts).
 */
import { ConfigError, loadSettings } from '../../../lib/config';
import { type HostRule, hostAllowed, hostRules, parseHostRule } from '../../../lib/config/host-rules';

const rule = (entry: string) => parseHostRule(entry) as HostRule;
const allows = (entries: string[], url: string) => hostAllowed(new URL(url), hostRules(entries));

describe('host rules', () => {
  it('reads host, host:port, *.domain and the https:// and loopback http:// forms', () => {
    expect(rule('media.capture.example')).toEqual({
      protocol: 'https:',
      hostname: 'media.capture.example',
      wildcard: false,
      port: 443,
    });
    expect(rule(' Media.Capture.Example:8443 ')).toMatchObject({ hostname: 'media.capture.example', port: 8443 });
    expect(rule('https://cdn.example')).toMatchObject({ protocol: 'https:', hostname: 'cdn.example', port: 443 });
    expect(rule('*.cloudfront.example')).toMatchObject({ hostname: 'cloudfront.example', wildcard: true, port: 443 });
    expect(rule('http://127.0.0.1:4022')).toEqual({
      protocol: 'http:',
      hostname: '127.0.0.1',
      wildcard: false,
      port: 4022,
    });
    expect(rule('http://localhost')).toMatchObject({ protocol: 'http:', hostname: 'localhost', port: 80 });
    expect(rule('http://fakes.localhost:9')).toMatchObject({ hostname: 'fakes.localhost' });
    expect(rule('http://[::1]:4010')).toMatchObject({ hostname: '[::1]', port: 4010 });
  });

  it('says why an entry is not one: another scheme, a path, a bad host, a wildcard IP, plain http off the machine', () => {
    expect(parseHostRule('ftp://files.example')).toMatch(/only https:\/\/ or http:\/\//);
    expect(parseHostRule('https://cdn.example/media')).toMatch(/without a path/);
    expect(parseHostRule('cdn.example?x=1')).toMatch(/without a path/);
    expect(parseHostRule('user@cdn.example')).toMatch(/without a path/);
    expect(parseHostRule('*.*.example')).toMatch(/without a path/);
    expect(parseHostRule('https://')).toMatch(/without a path/);
    expect(parseHostRule('cdn.example:99999')).toMatch(/not a host name/);
    expect(parseHostRule('bad host')).toMatch(/not a host name/);
    expect(parseHostRule('*.127.0.0.1')).toMatch(/wildcard/);
    expect(parseHostRule('http://*.localhost')).toMatch(/wildcard/);
    expect(parseHostRule('http://media.capture.example')).toMatch(/loopback test hosts only/);
    expect(parseHostRule('http://10.0.0.5:80')).toMatch(/loopback test hosts only/);
  });

  it('allows a URL whose scheme, host and port a rule names; a wildcard takes subdomains only', () => {
    const list = ['media.capture.example', '*.cdn.example', 'http://127.0.0.1:4022'];
    expect(allows(list, 'https://media.capture.example/m/1?sig=x')).toBe(true);
    expect(allows(list, 'https://media.capture.example:443/m/1')).toBe(true);
    expect(allows(list, 'https://MEDIA.capture.example/m/1')).toBe(true);
    expect(allows(list, 'https://eu.cdn.example/m/1')).toBe(true);
    expect(allows(list, 'https://a.b.cdn.example/m/1')).toBe(true);
    expect(allows(list, 'http://127.0.0.1:4022/files/original/m1')).toBe(true);

    expect(allows(list, 'http://media.capture.example/m/1')).toBe(false);
    expect(allows(list, 'https://media.capture.example:8443/m/1')).toBe(false);
    expect(allows(list, 'https://media.capture.example.evil.example/m/1')).toBe(false);
    expect(allows(list, 'https://cdn.example/m/1')).toBe(false);
    expect(allows(list, 'https://evilcdn.example/m/1')).toBe(false);
    expect(allows(list, 'https://127.0.0.1:4022/files/original/m1')).toBe(false);
    expect(allows(list, 'http://127.0.0.1:4023/files/original/m1')).toBe(false);
    expect(allows(list, 'http://localhost:4022/files/original/m1')).toBe(false);
    expect(allows(list, 'file:///etc/passwd')).toBe(false);
    expect(allows([], 'https://media.capture.example/m/1')).toBe(false);
  });

  it('stops start-up on an entry that is not one, naming the variable', () => {
    const load = (hosts: string) =>
      loadSettings({
        env: { CAPTURE_SOURCE_DOWNLOAD_HOSTS: hosts },
        dotenvPath: '/nonexistent/.env',
        machineFilePath: '/nonexistent/settings.env',
      });
    expect(load('media.capture.example, http://localhost:4022').CAPTURE_SOURCE_DOWNLOAD_HOSTS).toEqual([
      'media.capture.example',
      'http://localhost:4022',
    ]);
    expect(() => load('media.capture.example,http://media.capture.example')).toThrow(ConfigError);
    expect(() => load('http://media.capture.example')).toThrow(/CAPTURE_SOURCE_DOWNLOAD_HOSTS: .*loopback/);
  });
});
