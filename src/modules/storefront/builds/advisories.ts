/**
 * Security advisories for the storefront build's dependency policy (spec 02 §7), read from an OSV-format
 * source: a directory of OSV JSON records, a `.zip` such as OSV's `npm/all.zip` export (which also carries
 * the `MAL-` malware records of ossf/malicious-packages), or an http(s) URL of such a zip.
 *
 * Only npm records are kept, as compact entries indexed by package name, so the policy looks a package
 * up without scanning the source again.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as yauzl from 'yauzl';
import { z } from 'zod';
import { packageRoot } from '../../../paths.js';

/** The offline snapshot `svc dev` checks against when no `SVC_ADVISORY_SOURCE` is set. */
export const advisorySnapshotDir = join(packageRoot, 'advisories');

// semver ships no types and only the two functions below are needed. Required by the first check (its
// 47 files are no part of a service start).
type Semver = { valid(version: string): string | null; compare(a: string, b: string): -1 | 0 | 1 };
let semverModule: Semver | undefined;
const semverFunctions = () => (semverModule ??= createRequire(import.meta.url)('semver') as Semver);

export type Severity = 'LOW' | 'MODERATE' | 'HIGH' | 'CRITICAL' | 'UNKNOWN';

export interface Advisory {
  id: string;
  aliases: string[];
  summary: string;
  severity: Severity;
  malware: boolean;
}

/** The advisory source could not be read; the caller retries and, after 30 minutes, fails the build with DEPENDENCY_CHECK_UNAVAILABLE. */
export class AdvisorySourceUnavailable extends Error {
  constructor(
    readonly source: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`advisory source ${source} is unavailable: ${reason}`, options);
    this.name = 'AdvisorySourceUnavailable';
  }
}

const event = z.union([
  z.object({ introduced: z.string() }),
  z.object({ fixed: z.string() }),
  z.object({ last_affected: z.string() }),
  z.object({ limit: z.string() }),
]);
const severityScore = z.object({ type: z.string(), score: z.string() });
const osvRecord = z.object({
  id: z.string(),
  aliases: z.array(z.string()).optional(),
  summary: z.string().optional(),
  withdrawn: z.string().optional(),
  severity: z.array(severityScore).optional(),
  database_specific: z.object({ severity: z.string().optional() }).loose().optional(),
  affected: z
    .array(
      z.object({
        package: z.object({ ecosystem: z.string(), name: z.string() }).optional(),
        ranges: z.array(z.object({ type: z.string(), events: z.array(event) })).optional(),
        versions: z.array(z.string()).optional(),
        severity: z.array(severityScore).optional(),
      }),
    )
    .optional(),
});
type OsvRecord = z.infer<typeof osvRecord>;
type OsvEvent = z.infer<typeof event>;

interface Entry {
  advisory: Advisory;
  versions: Set<string>;
  ranges: OsvEvent[][];
}

export class AdvisoryIndex {
  private readonly byPackage = new Map<string, Entry[]>();
  private records = 0;

  /** Adds one OSV record; records of other ecosystems, withdrawn ones and malformed ones are left out. */
  add(raw: unknown): void {
    const parsed = osvRecord.safeParse(raw);
    if (!parsed.success || parsed.data.withdrawn) return;
    const record = parsed.data;
    const aliases = record.aliases ?? [];
    let added = false;
    for (const affected of record.affected ?? []) {
      if (affected.package?.ecosystem !== 'npm') continue;
      const advisory: Advisory = {
        id: record.id,
        aliases,
        summary: record.summary ?? '',
        severity: severityOf(record, affected.severity),
        malware: [record.id, ...aliases].some((id) => id.startsWith('MAL-')),
      };
      const ranges = (affected.ranges ?? []).filter((r) => r.type === 'SEMVER' || r.type === 'ECOSYSTEM').map((r) => r.events);
      const entries = this.byPackage.get(affected.package.name) ?? [];
      entries.push({ advisory, versions: new Set(affected.versions ?? []), ranges });
      this.byPackage.set(affected.package.name, entries);
      added = true;
    }
    if (added) this.records++;
  }

  /** How many npm records the index holds. */
  get size(): number {
    return this.records;
  }

  /** Malware records naming the package, whatever versions they list: a package once published as malware is refused in every version. */
  malware(name: string): Advisory[] {
    return (this.byPackage.get(name) ?? []).filter((e) => e.advisory.malware).map((e) => e.advisory);
  }

  /** Vulnerability (non-malware) advisories whose `versions[]` or ranges contain `version`. */
  affecting(name: string, version: string): Advisory[] {
    return (this.byPackage.get(name) ?? [])
      .filter((e) => !e.advisory.malware && (e.versions.has(version) || e.ranges.some((events) => inRange(version, events))))
      .map((e) => e.advisory);
  }
}

/**
 * OSV's range evaluation: events sorted by version, each `introduced` at or below the version opens the
 * range, each `fixed` at or below it (or `last_affected` below it) closes it again.
 */
function inRange(version: string, events: OsvEvent[]): boolean {
  const semver = semverFunctions();
  if (!semver.valid(version)) return false;
  const at = (e: OsvEvent) => ('introduced' in e ? e.introduced : 'fixed' in e ? e.fixed : 'last_affected' in e ? e.last_affected : e.limit);
  const comparable = events.filter((e) => !('limit' in e) && (at(e) === '0' || semver.valid(at(e))));
  const sorted = comparable.sort((a, b) => (at(a) === '0' ? -1 : at(b) === '0' ? 1 : semver.compare(at(a), at(b))));
  let affected = false;
  for (const e of sorted) {
    if ('introduced' in e) {
      if (e.introduced === '0' || semver.compare(version, e.introduced) >= 0) affected = true;
    } else if ('fixed' in e) {
      if (semver.compare(version, e.fixed) >= 0) affected = false;
    } else if ('last_affected' in e && semver.compare(version, e.last_affected) > 0) {
      affected = false;
    }
  }
  return affected;
}

/** GitHub's `database_specific.severity` when present (its words, MEDIUM read as MODERATE), else the CVSS v3 base score. */
function severityOf(record: OsvRecord, affectedSeverity: OsvRecord['severity']): Severity {
  const named = record.database_specific?.severity?.toUpperCase();
  if (named === 'LOW' || named === 'MODERATE' || named === 'HIGH' || named === 'CRITICAL') return named;
  if (named === 'MEDIUM') return 'MODERATE';
  const vector = [...(affectedSeverity ?? []), ...(record.severity ?? [])].find((s) => s.type === 'CVSS_V3')?.score;
  const score = vector ? cvss3BaseScore(vector) : null;
  if (score === null) return 'UNKNOWN';
  return score >= 9 ? 'CRITICAL' : score >= 7 ? 'HIGH' : score >= 4 ? 'MODERATE' : 'LOW';
}

const CVSS3_WEIGHTS: Record<string, Record<string, number>> = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  C: { H: 0.56, L: 0.22, N: 0 },
  I: { H: 0.56, L: 0.22, N: 0 },
  A: { H: 0.56, L: 0.22, N: 0 },
};

/** CVSS v3.x base score from its vector (the specification's formulas), null for anything unreadable. */
export function cvss3BaseScore(vector: string): number | null {
  const metrics = Object.fromEntries(
    vector
      .split('/')
      .slice(1)
      .map((part) => part.split(':') as [string, string]),
  );
  const changed = metrics.S === 'C';
  const pr = { N: 0.85, L: changed ? 0.68 : 0.62, H: changed ? 0.5 : 0.27 }[metrics.PR as 'N' | 'L' | 'H'];
  const w = (m: string) => CVSS3_WEIGHTS[m][metrics[m]];
  if (!vector.startsWith('CVSS:3') || pr === undefined || metrics.S === undefined || ['AV', 'AC', 'UI', 'C', 'I', 'A'].some((m) => w(m) === undefined))
    return null;
  const iss = 1 - (1 - w('C')) * (1 - w('I')) * (1 - w('A'));
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  if (impact <= 0) return 0;
  const exploitability = 8.22 * w('AV') * w('AC') * pr * w('UI');
  return roundUp(Math.min((changed ? 1.08 : 1) * (impact + exploitability), 10));
}

function roundUp(value: number): number {
  const scaled = Math.round(value * 100_000);
  return scaled % 10_000 === 0 ? scaled / 100_000 : (Math.floor(scaled / 10_000) + 1) / 10;
}

export async function loadAdvisories(source: string): Promise<AdvisoryIndex> {
  const index = new AdvisoryIndex();
  const addJson = (text: string) => {
    try {
      index.add(JSON.parse(text));
    } catch {
      // One unreadable record must not hide the others; it simply adds nothing.
    }
  };
  const addZip = async (zip: Buffer) => {
    try {
      for (const text of await readZip(zip)) addJson(text);
    } catch (err) {
      throw new AdvisorySourceUnavailable(source, `not a readable zip archive (${(err as Error).message})`, { cause: err });
    }
  };
  if (/^https?:\/\//i.test(source)) {
    await addZip(await download(source));
    return index;
  }
  const info = await stat(source).catch((err: unknown) => {
    throw new AdvisorySourceUnavailable(source, (err as Error).message, { cause: err });
  });
  if (info.isDirectory()) {
    const names = (await readdir(source, { recursive: true })).filter((name) => name.endsWith('.json'));
    for (const name of names) addJson(await readFile(join(source, name), 'utf8'));
    return index;
  }
  await addZip(await readFile(source));
  return index;
}

async function download(url: string): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(120_000) });
  } catch (err) {
    throw new AdvisorySourceUnavailable(url, (err as Error).message, { cause: err });
  }
  if (!response.ok) throw new AdvisorySourceUnavailable(url, `HTTP ${response.status}`);
  try {
    return Buffer.from(await response.arrayBuffer());
  } catch (err) {
    throw new AdvisorySourceUnavailable(url, (err as Error).message, { cause: err });
  }
}

/** The `.json` members of a zip archive (yauzl reads one member at a time), as text. A damaged archive rejects. */
async function readZip(zip: Buffer): Promise<string[]> {
  const archive = await yauzl.fromBufferPromise(zip, { lazyEntries: true });
  const texts: string[] = [];
  await new Promise<void>((done, fail) => {
    archive.on('error', fail);
    archive.on('end', () => done());
    archive.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('.json')) return archive.readEntry();
      archive.openReadStreamPromise(entry).then(async (stream) => {
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        texts.push(Buffer.concat(chunks).toString('utf8'));
        archive.readEntry();
      }, fail);
    });
    archive.readEntry();
  });
  return texts;
}
