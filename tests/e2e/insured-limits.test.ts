/**
 * The homeowner link's ceilings at their edges (the test service runs with
 * small ones: tests/support/service-env.ts), 415 and 422, rows of another
 * link, bad, revoked, rotated and expired tokens, the abandoned-upload sweep,
 * and the rate limits: one per-token budget spent from two processes at
 * once (the local service over HTTP and this test's process), and the
 * per-IP budget of tokens that open nothing.
 */
import { randomUUID } from 'node:crypto';
import { settings } from '../../lib/config';
import { openLink } from '../../lib/insured/access-service';
import { showInsuredWizard } from '../../lib/insured/service';
import { request } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { homeowner, invitedLink, MIB, postForm } from '../support/insured';

describe('homeowner link limits and refusals', () => {
  it('holds every ceiling at its edge: photo size, video size, file count, lifetime bytes and typed rows', async () => {
    const { token } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Den' })).body;
    const files = `/rooms/${room.id}/files`;
    const issue = (size: number, content_type = 'image/jpeg', filename = 'a.jpg') =>
      h.post(files, { filename, content_type, size });

    expect((await issue(MIB + 1)).status).toBe(413);
    expect((await issue(MIB)).status).toBe(201);
    const init = (total_size: number, filename = 'walk.mp4') =>
      h.post('/uploads/init', { kind: 'video', filename, room_id: room.id, total_size });
    expect((await init(8 * MIB + 1)).status).toBe(413);
    expect((await init(8 * MIB)).status).toBe(201);
    // 1 MiB + 8 MiB reserved; 3 MiB more reaches the 12 MiB lifetime ceiling exactly, one byte more passes it.
    expect((await init(3 * MIB + 1)).status).toBe(413);
    const last = await init(3 * MIB);
    expect(last.status).toBe(201);
    const full = await issue(1);
    expect(full.status).toBe(413);
    expect(full.body.detail).toMatch(/12 MB in all/);
    // Aborting gives the file's place back, never its bytes.
    expect((await h.delete(`/uploads/${last.body.upload_id}`)).body).toMatchObject({ status: 'aborted' });
    expect((await issue(1)).status).toBe(413);

    // Typed rows: four fit, the fifth does not; removing one makes room.
    const rows = [];
    for (let i = 0; i < 4; i++) rows.push((await h.post(`/rooms/${room.id}/items`, { name: `Row ${i}` })).body);
    expect((await h.post(`/rooms/${room.id}/items`, { name: 'Row 5' })).status).toBe(413);
    expect((await h.delete(`/items/${rows[0].id}`)).status).toBe(200);
    expect((await h.post(`/rooms/${room.id}/items`, { name: 'Row 5' })).status).toBe(201);
  });

  it('counts files up to INSURED_LINK_MAX_FILES, removal giving a place back', async () => {
    const { token } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Attic' })).body;
    const issued = [];
    for (let i = 0; i < 8; i++)
      issued.push(await h.post(`/rooms/${room.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 10 }));
    expect(issued.map((r) => r.status)).toEqual(Array(8).fill(201));
    const ninth = await h.post(`/rooms/${room.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 10 });
    expect(ninth.status).toBe(413);
    expect(ninth.body.detail).toMatch(/limit of 8 files/);
    expect((await h.delete(`/files/${issued[0].body.file.id}`)).status).toBe(200);
    expect(
      (await h.post(`/rooms/${room.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 10 })).status,
    ).toBe(201);
  });

  it('answers 415 for what is not a photo, video or voice note, and 422 for bad fields, writing nothing', async () => {
    const { token, linkId } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Study' })).body;
    const files = `/rooms/${room.id}/files`;
    expect((await h.post(files, { filename: 'list.pdf', content_type: 'application/pdf', size: 10 })).status).toBe(415);
    expect((await h.post(files, { filename: 'clip.mp4', content_type: 'video/mp4', size: 10 })).status).toBe(415);
    const init = await h.post('/uploads/init', {
      kind: 'audio',
      filename: 'notes.txt',
      room_id: room.id,
      total_size: 10,
    });
    expect(init.status).toBe(415);
    // Declared as a photo, but its bytes are text: refused at confirm, and removed.
    const text = Buffer.from('not a photo at all');
    const issued = await h.post(files, { filename: 'x.png', content_type: 'image/png', size: text.length });
    expect(await postForm(issued.body.upload, text)).toBe(204);
    const confirmed = await h.post(files, { file_id: issued.body.file.id });
    expect(confirmed.status).toBe(415);
    expect(await getRow(`INSUREDLINK#${linkId}`, `FILE#${issued.body.file.id}`)).toBeNull();
    // Not arrived yet: 409.
    const early = await h.post(files, { filename: 'y.png', content_type: 'image/png', size: 10 });
    expect((await h.post(files, { file_id: early.body.file.id })).status).toBe(409);

    const items = `/rooms/${room.id}/items`;
    expect((await h.post(items, { name: '' })).status).toBe(422);
    expect((await h.post(items, { name: 'Chair', quantity: 0 })).status).toBe(422);
    expect((await h.post(items, { name: 'Chair', colour: 'red' })).status).toBe(422);
    expect((await h.post(files, { filename: 'a.png', content_type: 'image/png', size: -1 })).status).toBe(422);
    const chair = (await h.post(items, { name: 'Chair' })).body;
    expect((await h.patch(`/items/${chair.id}`, {})).status).toBe(422);
    expect((await h.get()).body.rooms[0].items).toHaveLength(1);
  });

  it('answers 404 for rows of another link, bad tokens, revoked and rotated links', async () => {
    const a = await invitedLink();
    const b = await invitedLink();
    const ha = homeowner(a.token);
    const hb = homeowner(b.token);
    const roomA = (await ha.post('/rooms', { name: 'Porch' })).body;
    const itemA = (await ha.post(`/rooms/${roomA.id}/items`, { name: 'Bench' })).body;
    const fileA = (await ha.post(`/rooms/${roomA.id}/files`, { filename: 'a.png', content_type: 'image/png', size: 9 }))
      .body.file;
    expect((await hb.patch(`/items/${itemA.id}`, { name: 'Stolen' })).status).toBe(404);
    expect((await hb.delete(`/items/${itemA.id}`)).status).toBe(404);
    expect((await hb.delete(`/files/${fileA.id}`)).status).toBe(404);
    expect((await hb.get(`/files/${fileA.id}/content`)).status).toBe(404);
    expect((await hb.post(`/rooms/${roomA.id}/items`, { name: 'Bench' })).status).toBe(404);
    expect((await hb.post(`/items/${itemA.id}/photos`, { file_id: fileA.id })).status).toBe(404);

    const rotated = await a.adjuster.post(`/api/insured-links/${a.linkId}/resend`);
    const old = await ha.post(`/rooms/${roomA.id}/items`, { name: 'Late' });
    expect(old.status).toBe(404);
    const fresh = homeowner((rotated.body.url as string).split('/').pop() as string);
    expect((await fresh.get()).body.rooms[0].items).toHaveLength(1);
    await b.adjuster.post(`/api/insured-links/${b.linkId}/revoke`);
    for (const res of [
      await hb.get(),
      await hb.post('/submit'),
      await hb.post('/uploads/init', { kind: 'video', filename: 'a.mp4', room_id: roomA.id, total_size: 9 }),
    ])
      expect([res.status, res.body.detail]).toEqual([404, 'Link not found']);
    expect((await homeowner('A'.repeat(43)).post('/submit')).status).toBe(404);
    // Expired: the same 404 on every draft route.
    await setFields(`INSUREDLINK#${a.linkId}`, 'LINK', { expires_at: new Date(Date.now() - 1000).toISOString() });
    for (const res of [
      await fresh.get(),
      await fresh.patch(`/items/${itemA.id}`, { name: 'Late' }),
      await fresh.post('/submit'),
    ])
      expect([res.status, res.body.detail]).toEqual([404, 'Link not found']);
  });

  it('ends uploads left open for over a day when another starts', async () => {
    const { token, linkId } = await invitedLink();
    const h = homeowner(token);
    const room = (await h.post('/rooms', { name: 'Loft' })).body;
    const init = () =>
      h.post('/uploads/init', { kind: 'audio', filename: 'note.m4a', room_id: room.id, total_size: 100 });
    const stale = (await init()).body.upload_id;
    await setFields(`INSUREDLINK#${linkId}`, `FILE#${stale}`, {
      created_at: new Date(Date.now() - 25 * 3600_000).toISOString(),
    });
    expect((await init()).status).toBe(201);
    expect((await h.get(`/uploads/${stale}`)).body).toMatchObject({ status: 'expired' });
    expect((await h.post(`/uploads/${stale}/part-urls`, { parts: [0] })).status).toBe(409);
  });
});

describe('homeowner link rate limits', () => {
  /** Waits out the last seconds of a minute, so a burst lands in one window. */
  async function startOfWindow() {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 200));
  }

  it('spends one per-token budget across two service processes: 429 with Retry-After past it', async () => {
    const { token } = await invitedLink();
    const config = { ...settings(), INSURED_RATE_LIMIT_READS_PER_MINUTE: 30 };
    await startOfWindow();
    // The local service's process (over HTTP) and this test's process (the same service code in-process).
    const overHttp = Array.from({ length: 20 }, () => request('GET', `/api/public/insured/${token}`));
    const inProcess = Array.from({ length: 20 }, () =>
      showInsuredWizard(token, { config }).then(
        () => 200,
        (err: { retryAfterSeconds?: number }) => (err.retryAfterSeconds ? 429 : 500),
      ),
    );
    const http = await Promise.all(overHttp);
    const local = await Promise.all(inProcess);
    const statuses = [...http.map((r) => r.status), ...local];
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const limited = http.find((r) => r.status === 429);
    if (limited) {
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.body.detail).toMatch(/Too many requests/);
    }
  });

  it('limits bad tokens per client IP: 404 until the budget is spent, then 429', async () => {
    const config = { ...settings(), INSURED_RATE_LIMIT_UNKNOWN_TOKEN_PER_MINUTE: 3 };
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}-${randomUUID().slice(0, 4)}`;
    await startOfWindow();
    const outcomes = [];
    for (let i = 0; i < 5; i++)
      outcomes.push(
        await openLink(randomUUID(), 'read', { ip, config }).then(
          () => 'open',
          (err: Error) => err.name,
        ),
      );
    expect(outcomes).toEqual([
      'NotFoundError',
      'NotFoundError',
      'NotFoundError',
      'RateLimitedError',
      'RateLimitedError',
    ]);
  });
});
