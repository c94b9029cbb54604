/**
 * Bench-only: a company's instance written through the service's own code (the built dist/), in
 * batches, in seconds rather than the minutes the public API takes. What it writes is what the API
 * would: people with argon2id password hashes (prepareNewUser; the seeded crowd shares one hash)
 * and SCIM fields, teams with members, an organization with members, links by the links repo
 * (their duplicate keys, and on SQLite the search triggers' rows and the search index merged after
 * them, as after an import), and audit events appended by the audit repo — each a leaf of the
 * Merkle tree, the tree's nodes then stored as the checkpointer stores them.
 *
 * The measured person owns `personLinks` links and belongs to the organization of `orgMembers`
 * people that owns `orgLinks`; the other links are spread over the crowd. Every 400th title holds
 * the word `Quokka`. The measured person keeps `personTags` tags, and each of their links carries
 * one. Every tenth link, none of those with the word, was clicked on 8 of the last 45 days, as the
 * redirects' counter writes clicks (their days and each link's count of the last 30): the title
 * search's pages compare as before, without clicks. Two go-links of the measured person:
 * `bench-wiki` (path appending) and `bench-code` (a template).
 */
import path from 'node:path'
import { sql } from 'kysely'

export const PASSWORD = 'scale benchmark passphrase 1'
export const WORD = 'Quokka'
/** The links of the deep page the scale bench asks for (`limit`). */
export const DEEP_PAGE = 50
const BATCH = 500

/** Sizes of a large instance; `factor` scales every count (people at least 60). */
export function sizes(factor) {
  const n = (count, least = 1) => Math.max(least, Math.round(count * factor))
  return {
    people: n(5_000, 60),
    teams: n(100, 2),
    links: n(100_000, 100),
    personLinks: n(20_000, 20),
    personTags: n(200, 20),
    orgLinks: n(20_000, 20),
    orgMembers: 50,
    auditEvents: n(200_000, 50),
  }
}

/** A small instance: the same shapes with a handful of rows. */
export const SMALL = {
  people: 60,
  teams: 2,
  links: 100,
  personLinks: 40,
  personTags: 20,
  orgLinks: 40,
  orgMembers: 50,
  auditEvents: 50,
}

const pad = (i) => String(i).padStart(5, '0')

/** The person's `count` tags, as the tags API writes them; returns their ids. */
async function insertTags(db, { userId, count, at, newId }) {
  const rows = Array.from({ length: count }, (_, k) => ({
    id: newId(),
    user_id: userId,
    name: `Topic ${k}`,
    name_key: `topic ${k}`,
    color: null,
    created_at: at(k),
    updated_at: at(k),
  }))
  await db.insertInto('tags').values(rows).execute()
  return rows.map((row) => row.id)
}

/**
 * Seeds the database `env` (DATABASE_URL, DATA_DIR) names; returns the ids the bench needs and the
 * seconds each part took.
 */
export async function seedScale(root, env, size) {
  const load = (p) => import(path.join(root, 'dist', p))
  const [
    { parseConfig },
    { createDeps },
    { migrateToLatest },
    { createLogger },
    { newId, newUserKey },
    { prepareNewUser },
    { insertTeam },
    { insertOrganization },
    { insertLinks },
    { addClicks },
    { mergeSearchIndexStep },
    { insertAuditEvents },
    { materializeTree },
  ] = await Promise.all([
    load('config.js'),
    load('deps.js'),
    load('db/migrate.js'),
    load('logger.js'),
    load('lib/ids.js'),
    load('modules/users/service.js'),
    load('modules/admin/teams.repo.js'),
    load('modules/organizations/repo.js'),
    load('modules/links/repo.js'),
    load('modules/links/recent-clicks.repo.js'),
    load('modules/links/search-index.repo.js'),
    load('modules/audit/repo.js'),
    load('modules/audit/checkpoints.js'),
  ])
  const deps = createDeps(parseConfig({ ...env, LOG_LEVEL: 'silent' }), {
    logger: createLogger({ logLevel: 'silent' }),
  })
  const seconds = {}
  const timed = async (name, work) => {
    const started = performance.now()
    const result = await work()
    seconds[name] = Math.round((performance.now() - started) / 100) / 10
    return result
  }
  try {
    await migrateToLatest(deps.database)
    const db = deps.db
    const base = Date.now() - 400 * 24 * 3600 * 1000
    const at = (seconds) => new Date(base + seconds * 1000).toISOString()

    // People: the administrator, the measured person, the crowd (one shared hash).
    const people = await timed('people', async () => {
      const admin = await prepareNewUser(deps, {
        email: 'admin@corp.example',
        name: 'Scale Admin',
        password: PASSWORD,
        isAdmin: true,
      })
      const person = await prepareNewUser(deps, {
        email: 'me@corp.example',
        name: 'Measured Person',
        password: PASSWORD,
        isAdmin: false,
      })
      const rows = [admin, person]
      for (let i = 2; i < size.people; i++)
        rows.push({
          ...person,
          id: newId(),
          user_key: newUserKey(),
          email: `person-${pad(i)}@corp.example`,
          name: `Given${i} Family${i}`,
          created_at: at(i),
          updated_at: at(i),
        })
      for (let i = 0; i < rows.length; i += BATCH)
        await db
          .insertInto('users')
          .values(rows.slice(i, i + BATCH))
          .execute()
      // SCIM's view of the crowd, as upsertScimFields writes it.
      const scim = rows.slice(2).map((row, k) => ({
        user_id: row.id,
        user_name: row.email,
        user_name_lower: row.email,
        external_id: `00u${k}`,
        given_name: `Given${k + 2}`,
        family_name: `Family${k + 2}`,
        family_name_lower: `family${k + 2}`,
      }))
      for (let i = 0; i < scim.length; i += BATCH)
        await db
          .insertInto('scim_users')
          .values(scim.slice(i, i + BATCH))
          .execute()
      return rows
    })
    const [admin, person] = people
    const crowd = people.slice(2)

    const teams = await timed('teams', async () => {
      const ids = []
      for (let i = 0; i < size.teams; i++) {
        const id = newId()
        await insertTeam(db, {
          id,
          name: `Team ${i}`,
          name_key: `team ${i}`,
          description: null,
          created_at: at(i),
        })
        ids.push(id)
      }
      const members = crowd.map((user, k) => ({
        team_id: ids[k % ids.length],
        user_id: user.id,
        added_at: at(k),
      }))
      for (let i = 0; i < members.length; i += BATCH)
        await db
          .insertInto('team_members')
          .values(members.slice(i, i + BATCH))
          .execute()
      return ids
    })

    const organizationId = newId()
    await insertOrganization(db, {
      id: organizationId,
      name: 'Scale Org',
      slug: 'scale-org',
      created_at: at(0),
    })
    const orgPeople = [person, ...crowd.slice(0, size.orgMembers - 1)]
    await db
      .insertInto('organization_members')
      .values(
        orgPeople.map((user, k) => ({
          organization_id: organizationId,
          user_id: user.id,
          role: k === 1 ? 'owner' : 'member',
          joined_at: at(k),
        })),
      )
      .execute()

    const clicked = []
    const { deep } = await timed('links', async () => {
      const link = (i, owner, creator) => ({
        id: newId(),
        user_id: owner.userId ?? null,
        organization_id: owner.organizationId ?? null,
        created_by: creator,
        url: `https://intranet.example/${i}`,
        title: i % 400 === 0 ? `${WORD} notes ${i}` : `Page ${i} of the handbook`,
        slug: null,
        slug_key: null,
        forwarding_enabled: true,
        created_at: at(i),
      })
      const others = size.links - size.personLinks - size.orgLinks
      const tagIds = await insertTags(db, {
        userId: person.id,
        count: size.personTags,
        at,
        newId,
      })
      let batch = []
      let batchTags = []
      const flush = async () => {
        await db.transaction().execute((tx) => insertLinks(tx, batch, batchTags))
        batch = []
        batchTags = []
      }
      // The deep page's cursor: the link a quarter into the person's own, or, where fewer links
      // than a page and one come before it, the one after a page and one. The links the person
      // sees, oldest first, are theirs and then the organization's (index i), so the page after
      // the cursor is a full one on the small instance too, and compares with the large's.
      const deepIndex = Math.max(Math.floor(size.personLinks / 4), DEEP_PAGE + 1)
      let deep = null
      for (let i = 0; i < size.links; i++) {
        if (i < size.personLinks) {
          batch.push(link(i, { userId: person.id }, person.id))
          batchTags.push({ link_id: batch.at(-1).id, tag_id: tagIds[i % tagIds.length] })
        } else if (i < size.personLinks + size.orgLinks)
          batch.push(link(i, { organizationId }, orgPeople[i % orgPeople.length].id))
        else {
          const owner = crowd[(i - size.personLinks - size.orgLinks) % crowd.length]
          batch.push(link(i, { userId: owner.id }, owner.id))
        }
        if (i === deepIndex) deep = batch.at(-1)
        if (i % 10 === 5) clicked.push(batch.at(-1).id)
        if (batch.length === 5_000) await flush()
      }
      if (batch.length > 0) await flush()
      const wiki = {
        ...link(size.links, { userId: person.id }, person.id),
        url: 'https://wiki.example/base?lang=en',
        slug: 'bench-wiki',
        slug_key: 'bench-wiki',
        created_at: new Date().toISOString(),
      }
      const code = {
        ...link(size.links + 1, { userId: person.id }, person.id),
        url: 'https://code.example/repos/{1}/tree/{2|main}',
        slug: 'bench-code',
        slug_key: 'bench-code',
        created_at: new Date().toISOString(),
      }
      await insertLinks(db, [wiki, code], [])
      // What the service does after an import of this size: the search index merged, in steps.
      while (await mergeSearchIndexStep(db));
      return { others, deep: { id: deep.id, created_at: deep.created_at } }
    })

    await timed('clicks', async () => {
      const rows = clicked.flatMap((linkId, k) =>
        Array.from({ length: 8 }, (_, d) => ({
          link_id: linkId,
          day: new Date(Date.now() - ((k + d * 5) % 45) * 24 * 3600 * 1000)
            .toISOString()
            .slice(0, 10),
          clicks: 1 + ((k * 7 + d) % 20),
        })),
      )
      for (let i = 0; i < rows.length; i += 2_000)
        await db.transaction().execute((tx) => addClicks(tx, rows.slice(i, i + 2_000)))
    })

    await timed('audit', async () => {
      const actions = ['link.create', 'team.update', 'user.login', 'token.create']
      for (let first = 0; first < size.auditEvents; first += BATCH) {
        const events = []
        for (let i = first; i < Math.min(size.auditEvents, first + BATCH); i++) {
          const actor = people[i % people.length]
          events.push({
            at: at(i * 0.1),
            actorId: actor.id,
            actorEmail: actor.email,
            action: actions[i % actions.length],
            targetType: 'user',
            targetId: actor.id,
            ip: '198.51.100.7',
            userAgent: 'scale-seed',
            subjectUserId: actor.id,
            metadata: { n: i },
          })
        }
        await insertAuditEvents(db, events)
      }
      await materializeTree(db)
    })

    if (env.DATABASE_URL.startsWith('postgres'))
      // This schema's tables only: a bare `analyze` reads every schema of the database.
      await timed('analyze', () =>
        sql`analyze users, scim_users, teams, team_members, organizations, organization_members,
          links, link_teams, tags, link_tags, link_clicks, audit_events`.execute(db),
      )
    return { adminId: admin.id, personId: person.id, teams, organizationId, deep, seconds }
  } finally {
    await deps.close()
  }
}
