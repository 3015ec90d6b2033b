package pg

// ProcessesIn exposes the reaper's process scan to the tests, which check that no
// orphan survives recovery.
var ProcessesIn = processesIn

// KillProcessesIn lets a failing test clean up the processes it froze.
var KillProcessesIn = killProcessesIn

// MigrationLockForTest is the advisory lock Migrate holds.
const MigrationLockForTest = int64(migrationLock)

// ApplyMigration applies one migration as Migrate does, for tests that build a
// database at an older schema.
var ApplyMigration = applyMigration
