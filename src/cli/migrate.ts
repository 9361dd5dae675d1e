import { Command } from 'commander';
import { postgresCheckpointConfig } from '../checkpoint-config.js';
import { ConfigError } from '../config-env.js';
import { CliError } from './context.js';

/**
 * `askgate migrate`: creates or brings up to date the PostgreSQL checkpoint schema named by ASKGATE_CHECKPOINT_URL
 * and ASKGATE_CHECKPOINT_SCHEMA, as every start does, for deployments that run migrations as their own step (or
 * whose serving role may not create tables). Safe beside starting processes: they share one advisory lock.
 */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('create or update the PostgreSQL checkpoint schema (ASKGATE_CHECKPOINT_URL), as a start does')
    .addHelpText(
      'after',
      '\nExamples:\n  $ ASKGATE_CHECKPOINT_URL=postgres://askgate:secret@db:5432/askgate askgate migrate\n' +
        '  $ ASKGATE_CHECKPOINT_URL=postgres://db/askgate ASKGATE_CHECKPOINT_SCHEMA=staging askgate migrate\n',
    )
    .action(async () => {
      let config: ReturnType<typeof postgresCheckpointConfig>;
      try {
        config = postgresCheckpointConfig(process.env);
      } catch (error) {
        if (error instanceof ConfigError) throw new CliError(`bad configuration: ${error.message}`);
        throw error;
      }
      if (config === null)
        throw new CliError(
          'bad configuration: ASKGATE_CHECKPOINT_URL: is unset, so checkpoints are kept in Redis and there is ' +
            'nothing to migrate; set it to postgres://user:password@host:5432/database.',
        );
      // Loaded here, not at the top: every other command starts without the PostgreSQL driver.
      const { migrate } = await import('../store/postgres/migrations.js');
      const { openCheckpointPool, redactPostgresUrl } = await import('../store/postgres/pool.js');
      const pool = openCheckpointPool({
        url: config.url,
        statementTimeoutMs: config.statementTimeoutMs,
        max: 1,
        applicationName: 'askgate migrate',
        onIdleError: () => {}, // the one connection is released only at the end
      });
      try {
        const result = await migrate(pool, config.schema);
        const where = `schema "${config.schema}" at ${redactPostgresUrl(config.url)}`;
        process.stdout.write(
          result.applied.length === 0
            ? `checkpoint ${where} is at version ${result.to}: nothing to do\n`
            : `checkpoint ${where} migrated from version ${result.from} to ${result.to}\n`,
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (error instanceof ConfigError) throw new CliError(`bad configuration: ${reason}`);
        throw new CliError(`cannot migrate the checkpoint schema (ASKGATE_CHECKPOINT_URL): ${reason}`);
      } finally {
        await pool.end();
      }
    });
}
