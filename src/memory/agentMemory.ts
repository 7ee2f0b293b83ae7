import type { RootDatabase } from 'lmdb';
import type { Clock } from '../clock.js';
import { TroupeError, ValidationError } from '../errors.js';
import { type IdGenerator, randomIds } from '../ids.js';
import { type Logger, silentLogger } from '../logger.js';
import { AgentIdSchema, type Task, isParsedTask, parseOrThrow, parseTask } from '../task/index.js';
import { compactStep } from './compaction.js';
import { type CompactionContext, type CompactionReport, type Tally, compactionReport } from './compactionContext.js';
import type { CompactionHelpers } from './compactionHelpers.js';
import type { MemoryEntry, StoredEntry, SummaryEntry, TaskEntry } from './entries.js';
import { entriesDb, loadEntries, writeEntries } from './entryStore.js';
import type { CompressionReport, Fact, FactHit, NewFact } from './facts/factSchema.js';
import type { MemoryFacts } from './memoryFacts.js';
import type { RetrievalGraph } from './facts/retrievalGraph.js';
import { baseImportance } from './importance.js';
import { retrievalQuery } from './retrievalQuery.js';
import { type MemoryLimits, type MemoryLimitsInput, intakeBound, maxEntriesPerTask, memoryLimits } from './limits.js';
import { compactionDue } from './promotion.js';
import { remembers } from './remembers.js';
import { EntriesPerTask } from './entriesPerTask.js';
import { Tiers, inSession } from './tiers.js';
import { SummarisedWarning } from '../summarisedWarning.js';

/** At most one warning line in this time about Tasks memory refused (the first at once, then a count of the rest). */
const refusalWarningMs = 10_000;

export interface AgentMemoryOptions {
  readonly agentId: string;
  /** The organisation's LMDB environment (entries go to its `memory-entries` sub-db), or null to keep everything in memory only. */
  readonly db: RootDatabase | null;
  /** The agent's L4 store; the memory owns it from here on and closes it. */
  readonly facts: MemoryFacts;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly limits?: MemoryLimitsInput;
  /** Makes the ids that mark facts promoted from L3 (random by default). */
  readonly ids?: IdGenerator;
  /** The agent's graph as its searches read it (see RetrievalGraph), asked for at each search; absent or null: facts only. */
  readonly graph?: () => Promise<RetrievalGraph | null>;
}

/** Only the entries of one session (absent: every entry). */
export interface SessionFilter {
  readonly sessionId?: string;
}

/** What `observe` did with a Task: kept it in L1, ignored it (not this agent's, or not kept: see `remembers`), or refused it (L1 at its hard bound). */
export type ObserveOutcome = 'kept' | 'ignored' | 'refused';

export interface MemoryCounts {
  readonly l1: number;
  readonly l2: number;
  readonly l3: number;
  readonly l4: number;
  /** Facts extracted from summaries and not yet all in L4. */
  readonly pendingFacts: number;
  /** Tasks refused since the memory opened because L1 was at its hard bound. */
  readonly refused: number;
}

const noGraph = (): Promise<null> => Promise.resolve(null);

/** `now` must be a time on the clock: a NaN would make every age comparison false and compaction silently never due. */
function requireTime(now: number): void {
  if (!Number.isFinite(now) || now < 0) throw new ValidationError('now', `must be a time in milliseconds since the epoch, got ${now}`);
}

/**
 * One agent's memory: L1 recent full Tasks, L2 important ones, L3 summaries, and L4 facts
 * through its FactStore. It keeps what `observe` is fed (the runtime feeds it from the bus),
 * and `compact` moves entries up the tiers, one bounded step at a time, each move in one
 * LMDB transaction. An agent that never keeps anything holds no arrays or maps at all.
 *
 * @example
 * const memory = await AgentMemory.open({ agentId: 'root', db, facts, clock });
 * await memory.observe(task);
 * if (memory.compactionDue(clock.now())) await memory.compact(clock.now(), extractiveHelpers(limits));
 */
export class AgentMemory {
  readonly agentId: string;
  readonly #db: ReturnType<typeof entriesDb>;
  readonly #facts: MemoryFacts;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #limits: MemoryLimits;
  readonly #ids: IdGenerator;
  readonly #graph: () => Promise<RetrievalGraph | null>;
  #tiers: Tiers | undefined;
  #nextSeq: number;
  #lastWrite: Promise<unknown> | undefined;
  #compaction: Promise<CompactionReport> | undefined;
  #closed = false;
  #refusals: SummarisedWarning<'l1_full'> | undefined;
  #perTask: EntriesPerTask | undefined;

  private constructor(options: AgentMemoryOptions, loaded: { entries: StoredEntry[]; nextSeq: number }) {
    this.agentId = options.agentId;
    this.#db = entriesDb(options.db);
    this.#facts = options.facts;
    this.#clock = options.clock;
    this.#logger = options.logger ?? silentLogger;
    this.#limits = memoryLimits(options.limits);
    this.#ids = options.ids ?? randomIds;
    this.#graph = options.graph ?? noGraph;
    this.#tiers = loaded.entries.length === 0 ? undefined : Tiers.of(loaded.entries);
    this.#nextSeq = loaded.nextSeq;
  }

  /** Opens an agent's memory, restoring its entries from `db`; a record that fails its schema is skipped with an error log line. */
  static async open(options: AgentMemoryOptions): Promise<AgentMemory> {
    parseOrThrow(AgentIdSchema, options.agentId, 'agentId');
    memoryLimits(options.limits);
    const loaded = loadEntries(entriesDb(options.db), options.agentId, options.logger ?? silentLogger);
    return new AgentMemory(options, loaded);
  }

  get limits(): MemoryLimits {
    return this.#limits;
  }

  /**
   * Keeps a Task in L1 if this memory remembers it (see `remembers`), marked for L2 when its
   * base importance is above `l2Threshold`. L1 may then hold more than `l1Capacity` until the
   * next compaction, up to `maxBacklog` more: past that the Task is refused, with a warning.
   * The Task is in L1 at once; the promise resolves once it is on disk.
   */
  async observe(task: Task): Promise<ObserveOutcome> {
    this.#open();
    const checked = isParsedTask(task) ? task : parseTask(task);
    if (!remembers(this.agentId, checked)) return 'ignored';
    (this.#perTask ??= new EntriesPerTask()).saw(this.agentId, checked);
    const tiers = (this.#tiers ??= new Tiers());
    const bound = this.#limits.l1Capacity + this.#limits.maxBacklog;
    if (tiers.l1.length >= bound) {
      tiers.refused++;
      this.#warnRefused(checked.id, tiers);
      return 'refused';
    }
    const importance = baseImportance(checked);
    const entry: TaskEntry = {
      v: 1,
      seq: this.#nextSeq++,
      tier: 'L1',
      task: checked,
      sessionId: checked.sessionId,
      importance,
      retrievals: 0,
      createdAt: this.#clock.now(),
      lastRetrievedAt: null,
      forL2: importance > this.#limits.l2Threshold,
    };
    tiers.add(entry);
    await this.#write([entry], []);
    return 'kept';
  }

  /**
   * Whether `incoming` more Tasks of new work may be taken while `unanswered` Tasks taken are in
   * progress (intake asks before it accepts one): L1, with what those are expected to add (each
   * Task the agent's recent average of entries, see EntriesPerTask; an unanswered one's request
   * is in already), stays within `intakeBound`. The rest of the backlog is left for when the
   * estimate falls short, so `observe` refuses a Task only when compaction is far behind.
   */
  admits(incoming: number, unanswered: number): boolean {
    const perTask = this.#perTask?.average(maxEntriesPerTask(this.#limits)) ?? 2;
    return (this.#tiers?.l1.length ?? 0) + unanswered * (perTask - 1) + incoming * perTask <= intakeBound(this.#limits);
  }

  /** One warning line per `refusalWarningMs` however many Tasks were refused (the first at once, then a count). */
  #warnRefused(taskId: string, tiers: Tiers): void {
    this.#refusals ??= new SummarisedWarning(
      this.#logger,
      this.#clock,
      'memory refused Tasks: L1 is at l1Capacity + maxBacklog, compaction is behind',
      refusalWarningMs,
    );
    this.#refusals.add('l1_full', { agentId: this.agentId, taskId, l1: tiers.l1.length, refusedInAll: tiers.refused });
  }

  /** Goes up with every change to L1–L3 (what `l1`, `l2` and `l3` return), so a view built from them knows when to build again. */
  get version(): number {
    return this.#tiers?.version ?? 0;
  }

  /** L1: recent full Tasks, oldest first. */
  l1(filter?: SessionFilter): TaskEntry[] {
    return inSession(this.#tiers?.l1, filter);
  }

  /** L2: important full Tasks, oldest first. */
  l2(filter?: SessionFilter): TaskEntry[] {
    return inSession(this.#tiers?.l2, filter);
  }

  /** L3: summaries, oldest first (by the newest Task each summarises). */
  l3(filter?: SessionFilter): SummaryEntry[] {
    return inSession(this.#tiers?.l3, filter);
  }

  /**
   * L4: the `k` facts closest to `text` among that session's facts and the agent-scope ones, at
   * least `minSimilarity` close (when given); counts a retrieval of each.
   */
  async search(text: string, k: number, filter: { readonly sessionId: string | null; readonly minSimilarity?: number }): Promise<FactHit[]> {
    this.#open();
    const graph = await this.#graph();
    return this.#facts.search(text, k, { ...filter, graph });
  }

  /**
   * L4: the `k` facts a Task's text calls to mind, at least `minSimilarity` close: as `search`,
   * with a query built from the text within `maxQueryChars` (a turn must not fail because its
   * message is long); none for blank text.
   */
  async recall(text: string, k: number, filter: { readonly sessionId: string | null; readonly minSimilarity: number }): Promise<FactHit[]> {
    const query = retrievalQuery(text, this.#facts.maxQueryChars);
    if (query === '') return [];
    this.#open();
    const graph = await this.#graph();
    return this.#facts.search(query, k, { sessionId: filter.sessionId, minSimilarity: filter.minSimilarity, graph });
  }

  /** L4 facts, oldest first: those `sessionId` may see (its own and agent-scope ones), or every fact without one. */
  facts(filter?: SessionFilter): Fact[] {
    return this.#facts.list(filter);
  }

  /** The `k` facts closest to `text`, as `search` but counting no retrieval (a view of memory, not a use of it); without `sessionId`, over every fact. */
  async peek(text: string, k: number, filter?: SessionFilter): Promise<FactHit[]> {
    this.#open();
    const graph = await this.#graph();
    return this.#facts.peek(text, k, { ...filter, graph });
  }

  /** Stores a fact in L4 (a near-duplicate merges into the fact it repeats). */
  async remember(fact: NewFact): Promise<{ fact: Fact; merged: boolean }> {
    this.#open();
    return this.#facts.add(fact);
  }

  /** Stores many facts in L4 at once, in order (see FactStore.addMany). */
  async rememberMany(facts: readonly { readonly fact: unknown; readonly merge: boolean }[]): Promise<{ fact: Fact; merged: boolean }[]> {
    this.#open();
    return this.#facts.addMany(facts);
  }

  /**
   * Removes an L4 fact; resolves with whether it was held. An id merged into another fact is
   * not held: `mergedInto` names the fact that holds it.
   */
  async forget(factId: string): Promise<boolean> {
    this.#open();
    return (await this.#facts.remove([factId])).length > 0;
  }

  /** The L4 fact `factId` was merged into, if any. */
  mergedInto(factId: string): Fact | undefined {
    return this.#facts.mergedInto(factId);
  }

  /**
   * Counts one retrieval of each entry (it was returned to a context), which raises its
   * effective importance; written in one transaction. An entry that moved from L1 to L2 since
   * is still counted; one that left for a summary or L4 is not.
   */
  async noteRetrieved(entries: readonly MemoryEntry[]): Promise<void> {
    this.#open();
    const now = this.#clock.now();
    const updated: MemoryEntry[] = [];
    for (const entry of entries) {
      const current = this.#tiers?.findEntry(entry.seq);
      if (current === undefined) continue;
      const next = { ...current, retrievals: current.retrievals + 1, lastRetrievedAt: now };
      this.#tiers?.replace(current.tier, next);
      updated.push(next);
    }
    await this.#write(updated, []);
  }

  counts(): MemoryCounts {
    const tiers = this.#tiers;
    return {
      l1: tiers?.l1.length ?? 0,
      l2: tiers?.l2.length ?? 0,
      l3: tiers?.l3.length ?? 0,
      l4: this.#facts.size,
      pendingFacts: tiers?.pending.length ?? 0,
      refused: tiers?.refused ?? 0,
    };
  }

  /** True when a tier holds more than its capacity or an entry older than its age, or facts wait for L4. */
  compactionDue(now: number): boolean {
    requireTime(now);
    return this.#tiers !== undefined && compactionDue(this.#tiers, now, this.#limits);
  }

  /**
   * One bounded compaction step (at most `entriesPerStep` entries), each move in one LMDB
   * transaction; resolves once what it wrote is on disk. `helpers` write the summaries and
   * facts (the compactor's model, or `extractiveHelpers`). A step that could do nothing says
   * why in `reason` with `progress: false`: calling again at once would do nothing either.
   * One step runs at a time; a call while one runs makes no progress and says so.
   */
  async compact(now: number, helpers: CompactionHelpers): Promise<CompactionReport> {
    this.#open();
    requireTime(now);
    if (this.#compaction !== undefined) return this.#report(now, undefined, 'a compaction step of this memory is already running');
    const tiers = this.#tiers;
    if (tiers === undefined) return this.#report(now, undefined, 'nothing is due');
    this.#compaction = compactStep(this.#context(tiers), now, helpers).then(async ({ tally, reason }) => {
      await this.#lastWrite;
      return this.#report(now, tally, reason);
    });
    try {
      return await this.#compaction;
    } finally {
      this.#compaction = undefined;
    }
  }

  /** True once `close` was called: every later call but `counts`, `compactionDue` and the tier reads is refused. */
  isClosed(): boolean {
    return this.#closed;
  }

  /** True when L4 holds more facts than its FactStore's `compressAbove`. */
  factsNeedCompression(): boolean {
    return this.#facts.needsCompression();
  }

  /** Shrinks L4: merges clusters of close facts (without an embedder, keeps the most important); see FactStore.compress. */
  async compressFacts(): Promise<CompressionReport> {
    this.#open();
    return this.#facts.compress();
  }

  /** Waits for the step in progress and every write, then has the FactStore save its index file if it changed; the memory stays open. */
  async flush(): Promise<void> {
    if (this.#closed) return;
    await this.#compaction;
    await this.#lastWrite;
    await this.#facts.flush();
  }

  /** Waits for the step in progress (it stops before its next move) and every write, then closes the FactStore. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#refusals?.close();
    await this.#compaction;
    await this.#lastWrite;
    await this.#facts.close();
  }

  #report(now: number, tally: Tally | undefined, reason: string | null): CompactionReport {
    return compactionReport(tally, reason, this.compactionDue(now));
  }

  #context(tiers: Tiers): CompactionContext {
    return {
      agentId: this.agentId,
      tiers,
      limits: this.#limits,
      facts: this.#facts,
      ids: this.#ids,
      logger: this.#logger,
      nextSeq: () => this.#nextSeq++,
      write: (puts, removes) => this.#write(puts, removes),
      closing: () => this.#closed,
    };
  }

  #write(puts: readonly StoredEntry[], removes: readonly number[]): Promise<void> {
    const written = writeEntries(this.#db, this.agentId, puts, removes);
    // lmdb commits in the order writes are issued: the last one settled means all have.
    this.#lastWrite = written.catch(() => undefined);
    return written;
  }

  #open(): void {
    if (this.#closed) throw new TroupeError('internal', `the memory of agent ${this.agentId} is closed`, { context: { agentId: this.agentId } });
  }
}
