/** One statement on a connection of its own (creating or dropping a bench's schema). */
import pg from 'pg'

export async function runStatement(connectionString, statement) {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}
