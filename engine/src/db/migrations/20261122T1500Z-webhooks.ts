import { sql, type Kysely } from 'kysely';

// Frozen once landed: a change is a new migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhooks (
      idWebhook TEXT PRIMARY KEY,
      accountId TEXT NOT NULL REFERENCES accounts(id),
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nombre TEXT NOT NULL,
      url TEXT NOT NULL,
      secreto TEXT NOT NULL,
      eventos TEXT,
      estado TEXT NOT NULL CHECK (estado IN ('activo','inactivo','suspendido')),
      fallosConsecutivos INTEGER NOT NULL,
      suspendidoEn TEXT,
      ultimoError TEXT,
      prefijoCabeceras TEXT NOT NULL,
      creadoEn TEXT NOT NULL,
      ultimaModificacion TEXT NOT NULL
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhooks_account ON webhooks(accountId, entorno, creadoEn)`.execute(db);
  await sql`
    CREATE TABLE webhook_issuers (
      webhookId TEXT NOT NULL REFERENCES webhooks(idWebhook) ON DELETE CASCADE,
      entorno TEXT NOT NULL CHECK (entorno IN ('test','live')),
      nif TEXT NOT NULL,
      creadoEn TEXT NOT NULL,
      PRIMARY KEY (webhookId, nif)
    ) STRICT`.execute(db);
  // Fan-out: the webhooks linked to an event's issuer.
  await sql`CREATE INDEX webhook_issuers_issuer ON webhook_issuers(entorno, nif)`.execute(db);
  await sql`
    CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,
      webhookId TEXT NOT NULL REFERENCES webhooks(idWebhook) ON DELETE CASCADE,
      eventId TEXT NOT NULL REFERENCES events(id),
      evento TEXT NOT NULL,
      body TEXT NOT NULL,
      estado TEXT NOT NULL CHECK (estado IN ('pendiente','entregada','fallida')),
      intentos INTEGER NOT NULL,
      siguienteIntentoEn TEXT,
      ultimoCodigo INTEGER,
      ultimoError TEXT,
      creadoEn TEXT NOT NULL,
      entregadaEn TEXT
    ) STRICT`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries(estado, siguienteIntentoEn)`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhookId, creadoEn)`.execute(db);
  await sql`
    CREATE TABLE webhook_delivery_attempts (
      deliveryId TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      intento INTEGER NOT NULL,
      statusCode INTEGER,
      latencyMs INTEGER NOT NULL,
      error TEXT,
      at TEXT NOT NULL,
      PRIMARY KEY (deliveryId, intento)
    ) STRICT`.execute(db);
}
