import {
  addressProblem,
  isLoopbackAddress,
  isPublicAddress,
  literalAddress,
} from '../../../lib/integrations/address-rules';

describe('address rules', () => {
  it('take public unicast addresses as public, in either family and IPv4-mapped', () => {
    for (const address of [
      '8.8.8.8',
      '93.184.215.14',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });

  it('take private, loopback, link-local, shared, multicast, reserved and documentation ranges as not public', () => {
    for (const address of [
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.2.1',
      '192.168.1.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '2001:db8::1',
      '64:ff9b::a00:1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      'not an address',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
  });

  it('judge every IPv6 form that carries an IPv4 address by the address it carries', () => {
    const forms = (v4: string, hex: string) => [
      `::ffff:${v4}`, // IPv4-mapped
      `::${v4}`, // IPv4-compatible
      `::${hex}`,
      `::ffff:0:${v4}`, // SIIT (IPv4-translated)
      `::ffff:0:${hex}`,
      `64:ff9b::${v4}`, // NAT64
      `64:ff9b::${hex}`,
      `2002:${hex}::1`, // 6to4
    ];
    for (const address of [...forms('10.0.0.1', 'a00:1'), ...forms('169.254.169.254', 'a9fe:a9fe')])
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    for (const address of forms('8.8.8.8', '808:808'))
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    for (const address of forms('127.0.0.1', '7f00:1')) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
      expect([address, isLoopbackAddress(address)]).toEqual([address, true]);
    }
    expect(addressProblem('files.example.com', '::ffff:0:a00:1')).toBe(
      'files.example.com resolves to ::ffff:0:a00:1, which is not a public address',
    );
    expect(addressProblem('localhost', '::a00:1')).toBe('localhost resolves to ::a00:1, which is not this machine');
  });

  it('keep :: and ::1 IPv6’s own, not IPv4-compatible forms', () => {
    expect([isPublicAddress('::'), isLoopbackAddress('::')]).toEqual([false, false]);
    expect([isPublicAddress('::1'), isLoopbackAddress('::1')]).toEqual([false, true]);
  });

  it('read the IP address a URL hostname is written as, brackets off; none for a name', () => {
    expect(['10.0.0.5', '[::1]', '[fd00::2]', 'example.com', 'localhost'].map(literalAddress)).toEqual([
      '10.0.0.5',
      '::1',
      'fd00::2',
      null,
      null,
    ]);
  });

  it('know this machine’s addresses', () => {
    for (const address of ['127.0.0.1', '127.5.6.7', '::1', '::ffff:127.0.0.1'])
      expect([address, isLoopbackAddress(address)]).toEqual([address, true]);
    for (const address of ['10.0.0.1', '::2', 'localhost'])
      expect([address, isLoopbackAddress(address)]).toEqual([address, false]);
  });

  it('let a loopback host reach this machine only, and any other host only the internet', () => {
    expect(addressProblem('localhost', '127.0.0.1')).toBeNull();
    expect(addressProblem('[::1]', '::1')).toBeNull();
    expect(addressProblem('localhost', '192.168.0.2')).toBe(
      'localhost resolves to 192.168.0.2, which is not this machine',
    );
    expect(addressProblem('files.example.com', '93.184.215.14')).toBeNull();
    expect(addressProblem('files.example.com', '127.0.0.1')).toBe(
      'files.example.com resolves to 127.0.0.1, which is not a public address',
    );
    expect(addressProblem('10.0.0.5', '10.0.0.5')).toBe('10.0.0.5 is not a public address');
    expect(addressProblem('[fd00::1]', 'fd00::1')).toBe('[fd00::1] is not a public address');
  });
});
