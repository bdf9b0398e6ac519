import * as z from 'zod';
import { credentialParam, loggablePath, MASKED_CREDENTIAL, type RouteContract } from '../../../lib/http/route';
import { codeParams } from '../../../lib/training/schemas';
import { insuredRoutes } from '../../../lib/insured/routes';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';

const TOKEN = 'Zk3pQ9vXr2LmN8sT4wYb6HcJd1FgAe7uK5oRiBx0qWs';
const ROOM = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('the path a call is written down as', () => {
  it('fills in ids and masks a credential parameter', () => {
    const route = {
      path: '/api/public/insured/{token}/rooms/{room_id}/files',
      params: z.object({ token: credentialParam(z.string()), room_id: z.uuid() }),
    };
    expect(loggablePath(route, { token: TOKEN, room_id: ROOM })).toBe(
      `/api/public/insured/${MASKED_CREDENTIAL}/rooms/${ROOM}/files`,
    );
  });

  it('keeps the template where a value is missing, and encodes what it fills in', () => {
    const route = { path: '/t/{a}/{b}', params: z.object({ a: z.string(), b: z.string() }) };
    expect(loggablePath(route, { a: 'x y/z' })).toBe('/t/x%20y%2Fz/{b}');
    expect(loggablePath({ path: '/health' })).toBe('/health');
  });

  it('masks the token of every public homeowner route and the code of a certificate', () => {
    const publicRoutes: RouteContract[] = [
      ...Object.values(insuredRoutes),
      ...Object.values(insuredDraftRoutes),
    ].filter((r) => r.path.includes('{token}'));
    expect(publicRoutes.length).toBeGreaterThan(15);
    for (const route of publicRoutes) {
      const values = Object.fromEntries(
        Object.keys(route.params?.shape ?? {}).map((k) => [k, k === 'token' ? TOKEN : ROOM]),
      );
      const written = loggablePath(route, values);
      expect(written).not.toContain(TOKEN);
      expect(written).toContain(MASKED_CREDENTIAL);
    }
    expect(loggablePath({ path: '/api/training/certificates/{code}', params: codeParams }, { code: 'CERT-7Q2K' })).toBe(
      `/api/training/certificates/${MASKED_CREDENTIAL}`,
    );
  });
});
