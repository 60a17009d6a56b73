import { describe, expect, it } from 'vitest'
import { protocolNotice, versionNotice } from '../../../extension/background/versionNotices'

// What the side panel says when the daemon and the running extension differ, after `bridge update`:
// one sentence, one fix, chosen by which side is newer.
describe('connection notices', () => {
  it('says to reload the extension when the daemon speaks a newer protocol, and offers the button', () => {
    expect(protocolNotice({ protocol: 3, version: '0.3.0' }, { protocol: 2, version: '0.2.0' })).toEqual({
      fix: 'reloadExtension',
      message:
        'The daemon was updated to 0.3.0 (protocol 3) but this extension still runs 0.2.0 (protocol 2): reload the extension so it runs 0.3.0.',
    })
  })

  it('says to restart the daemon from the updated bridge when the daemon speaks an older protocol', () => {
    expect(protocolNotice({ protocol: 1, version: '0.1.0' }, { protocol: 2, version: '0.2.0' })).toEqual({
      message:
        'This extension is 0.2.0 (protocol 2) but the daemon that runs is an older 0.1.0 (protocol 1): restart the daemon from the updated bridge with `bridge stop` and then `bridge start`.',
    })
  })

  it('says nothing for the same version, and the fix by which side is newer otherwise', () => {
    expect(versionNotice('0.2.0', '0.2.0')).toBeUndefined()
    expect(versionNotice('0.10.0', '0.9.0')?.fix).toBe('reloadExtension')
    expect(versionNotice('0.2.0-rc.1', '0.2.0')?.fix).toBe('restartDaemon')
  })
})
