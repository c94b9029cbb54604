/**
 * `switchboard restore` refuses a backup carrying a schema object no migration creates — a planted
 * trigger would act on every write without an audit event — and leaves the target untouched.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/helpers/database.js'
import { runCli } from '../../cli.js'

async function cli(args: string[], env: Record<string, string>) {
  let output = ''
  const code = await runCli(args, {
    env,
    stdin: Readable.from(['']),
    stdout: { write: (text: string) => (output += text) },
    stderr: { write: (text: string) => (output += text) },
  })
  return { code, output }
}

describe('restore and the schema the migrations create', () => {
  it('a clean backup restores; one with a planted trigger or view is refused, the target untouched', async () => {
    const source = { DATA_DIR: path.join(makeTempDir(), 'data') }
    expect((await cli(['migrate'], source)).code).toBe(0)
    const backup = path.join(makeTempDir(), 'backup.db')
    expect((await cli(['backup', backup], source)).code).toBe(0)
    expect((await cli(['restore', backup], { DATA_DIR: makeTempDir() })).code).toBe(0)

    const planted = path.join(makeTempDir(), 'planted.db')
    fs.copyFileSync(backup, planted)
    const database = new DatabaseSync(planted)
    database.exec(`create trigger promote_on_sign_in after update on users
      begin update users set is_admin = 1 where id = new.id; end`)
    database.exec('create view everyone as select email from users')
    database.close()
    const target = path.join(makeTempDir(), 'data')
    const refused = await cli(['restore', planted], { DATA_DIR: target })
    expect(refused.code).toBe(1)
    expect(refused.output).toContain(
      'holds schema objects no migration creates (trigger promote_on_sign_in, view everyone)',
    )
    expect(fs.existsSync(path.join(target, 'switchboard.db'))).toBe(false)
  })
})
