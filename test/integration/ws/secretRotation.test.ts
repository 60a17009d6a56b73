import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENGINES, startDaemon, type RunningDaemon } from '../../helpers/daemon'
import { FakeExtension } from '../../helpers/fakeExtension'

// `bridge config rotate-secret` writes a new auth.json, then POSTs /reload with the old secret. The
// daemon adopts the new secret and tells the extension by closing its socket (4002 "secret rotated");
// the extension then reconnects with the secret it re-reads from auth.json.
describe.each(ENGINES)('secret rotation (%s engine)', (engine) => {
  let daemon: RunningDaemon

  beforeAll(async () => {
    daemon = await startDaemon({ engine })
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it('closes the extension socket opened with the old secret, then accepts only the new one', async () => {
    const oldSecret = daemon.secret
    const ext = await FakeExtension.connect(daemon)
    const newSecret = randomBytes(32).toString('hex')
    writeFileSync(join(daemon.configDir, 'extension', 'auth.json'), JSON.stringify({ secret: newSecret }), {
      mode: 0o600,
    })

    const reload = await fetch(`${daemon.url}/reload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${oldSecret}` },
    })
    expect(reload.status).toBe(200)
    expect(await ext.closed).toEqual({ code: 4002, reason: 'secret rotated' })

    await expect(FakeExtension.connect({ port: daemon.port, secret: oldSecret })).rejects.toThrow('HTTP 401')
    const again = await FakeExtension.connect({ port: daemon.port, secret: newSecret })
    const health = await fetch(`${daemon.url}/health`, { headers: { authorization: `Bearer ${newSecret}` } })
    expect(((await health.json()) as { extensionConnected: boolean }).extensionConnected).toBe(true)
    await again.close()
  })
})
