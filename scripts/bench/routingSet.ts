import { seededRandom } from '../../src/random.js';
import type { RoutingCandidate } from '../../src/routing/index.js';

// A labelled routing set made from a seed: roles (a domain × an activity) with descriptions and
// prompts, and requests phrased the way users ask, each labelled with the role it should reach
// or with null (a request no role can take). Two disjoint families of phrasings: `tune`, on which
// the router's defaults may be chosen, and `heldout`, the only one accuracy is reported on.

interface Domain {
  readonly key: string;
  /** Ways the domain is named: the first is the role's, the rest are what users also say. */
  readonly names: readonly string[];
  readonly objects: readonly string[];
}

interface Activity {
  readonly key: string;
  readonly agent: string;
  /** The verbs a description may use; a request draws from all of them and from `alsoSaid`, which a role's prompt names. */
  readonly verbs: readonly string[];
  readonly alsoSaid: readonly string[];
  /** Synonyms no role's text names: only the `unseen` slice uses them, to show what a lexical score cannot know. */
  readonly unseen: readonly string[];
}

const domains: readonly Domain[] = [
  { key: 'typescript', names: ['TypeScript', 'typescript', 'TS'], objects: ['code', 'types', 'pull request', 'module'] },
  { key: 'python', names: ['Python', 'python', 'py'], objects: ['script', 'code', 'package', 'notebook'] },
  { key: 'rust', names: ['Rust', 'rust'], objects: ['crate', 'code', 'borrow checker errors'] },
  { key: 'golang', names: ['Go', 'Golang', 'golang'], objects: ['service', 'goroutines', 'code'] },
  { key: 'java', names: ['Java', 'java'], objects: ['Spring app', 'classes', 'code'] },
  { key: 'postgres', names: ['PostgreSQL', 'Postgres', 'postgres'], objects: ['queries', 'schema', 'indexes', 'database'] },
  { key: 'kubernetes', names: ['Kubernetes', 'k8s', 'kubernetes'], objects: ['cluster', 'manifests', 'helm charts', 'deployments'] },
  { key: 'terraform', names: ['Terraform', 'terraform'], objects: ['modules', 'infrastructure', 'state'] },
  { key: 'react', names: ['React', 'react'], objects: ['components', 'hooks', 'frontend'] },
  { key: 'css', names: ['CSS', 'css', 'stylesheet'], objects: ['layout', 'styles', 'animations'] },
  { key: 'swift', names: ['Swift', 'iOS', 'swift'], objects: ['iPhone app', 'views', 'code'] },
  { key: 'kotlin', names: ['Kotlin', 'Android', 'kotlin'], objects: ['Android app', 'activities', 'code'] },
  { key: 'security', names: ['security', 'appsec', 'pentest'], objects: ['threat model', 'vulnerabilities', 'auth flow'] },
  { key: 'accessibility', names: ['accessibility', 'a11y', 'WCAG'], objects: ['web pages', 'screen reader support', 'forms'] },
  { key: 'pandas', names: ['pandas', 'dataframe', 'data analysis'], objects: ['dataframes', 'dataset', 'analysis'] },
  { key: 'ml', names: ['machine learning', 'ML', 'deep learning'], objects: ['model', 'training pipeline', 'experiments'] },
  { key: 'tax', names: ['tax', 'taxes', 'VAT'], objects: ['tax return', 'deductions', 'filing'] },
  { key: 'contracts', names: ['contract law', 'legal', 'contracts'], objects: ['contract', 'NDA', 'terms of service'] },
  { key: 'marketing', names: ['marketing', 'copywriting', 'ad copy'], objects: ['campaign', 'landing page', 'newsletter'] },
  { key: 'seo', names: ['SEO', 'search ranking', 'seo'], objects: ['keywords', 'site', 'meta tags'] },
  { key: 'recruiting', names: ['recruiting', 'hiring', 'recruitment'], objects: ['job posting', 'interview plan', 'candidates'] },
  { key: 'nutrition', names: ['nutrition', 'diet', 'meal planning'], objects: ['meal plan', 'diet', 'macros'] },
  { key: 'travel', names: ['travel', 'trip planning', 'itinerary'], objects: ['itinerary', 'trip', 'bookings'] },
  { key: 'finance', names: ['personal finance', 'budgeting', 'investing'], objects: ['budget', 'portfolio', 'savings plan'] },
  { key: 'music', names: ['music theory', 'harmony', 'songwriting'], objects: ['chord progression', 'song', 'arrangement'] },
  { key: 'french', names: ['French', 'french'], objects: ['text', 'letter', 'documents'] },
];

const activities: readonly Activity[] = [
  {
    key: 'reviewer',
    agent: 'reviewer',
    verbs: ['review', 'audit', 'critique', 'check'],
    alsoSaid: ['look over', 'go over', 'proofread', 'inspect'],
    unseen: ['scrutinise', 'vet'],
  },
  {
    key: 'writer',
    agent: 'writer',
    verbs: ['write', 'draft', 'author', 'create'],
    alsoSaid: ['put together', 'compose', 'produce', 'come up with'],
    unseen: ['whip up', 'pen'],
  },
  {
    key: 'debugger',
    agent: 'debugger',
    verbs: ['debug', 'fix', 'troubleshoot', 'diagnose'],
    alsoSaid: ['sort out', 'repair', 'figure out what is wrong with', 'solve problems in'],
    unseen: ['patch up', 'untangle'],
  },
  {
    key: 'teacher',
    agent: 'tutor',
    verbs: ['teach', 'explain', 'tutor', 'coach'],
    alsoSaid: ['walk me through', 'help me understand', 'give lessons on', 'train me in'],
    unseen: ['mentor me on', 'school me in'],
  },
  {
    key: 'optimiser',
    agent: 'optimiser',
    verbs: ['optimise', 'speed up', 'tune', 'improve'],
    alsoSaid: ['make faster', 'optimize', 'streamline', 'boost'],
    unseen: ['turbocharge', 'slim down'],
  },
];

/** Domains no role has: requests about them must be refused. */
const unknownDomains: readonly Domain[] = [
  { key: 'baking', names: ['sourdough', 'baking', 'pastry'], objects: ['bread recipe', 'croissants', 'starter'] },
  { key: 'gardening', names: ['gardening', 'vegetable garden', 'roses'], objects: ['flower beds', 'tomato plants', 'compost'] },
  { key: 'weddings', names: ['wedding', 'wedding planning'], objects: ['seating chart', 'vows', 'guest list'] },
  { key: 'cars', names: ['car', 'engine', 'motorbike'], objects: ['brakes', 'gearbox', 'oil leak'] },
  { key: 'knitting', names: ['knitting', 'crochet'], objects: ['scarf pattern', 'sweater', 'yarn choice'] },
  { key: 'astronomy', names: ['astronomy', 'telescope', 'stargazing'], objects: ['star chart', 'eyepieces', 'observing plan'] },
  { key: 'plumbing', names: ['plumbing', 'boiler', 'radiators'], objects: ['pipes', 'water heater', 'drains'] },
  { key: 'chess', names: ['chess', 'openings'], objects: ['endgames', 'tournament prep', 'games'] },
];

/** Openers and closers of requests: the tuning family and the held-out family share none. */
const phrasings = {
  tune: {
    openers: ['I need someone who can', 'Can you find me somebody to', 'Looking for an expert to', 'Who can', 'Please get someone to', ''],
    closers: ['', '?', ' for me', ' please', ' asap', ' today'],
    objectForms: ['my {object}', 'the {object}', 'our {object}'],
  },
  heldout: {
    openers: [
      'Could someone',
      'We want a person able to',
      'Is there anyone here who will',
      'Hey, I would like help to',
      'Need a hand:',
      'Assign this to whoever can',
    ],
    closers: [' thanks', '.', ' when you get a chance', ' before Friday', '!', ' (urgent)'],
    objectForms: ['this {object}', 'a {object} of ours', 'some {object}'],
  },
} as const;

export type Phrasing = keyof typeof phrasings;

export interface LabelledRequest {
  readonly text: string;
  /** The id of the role it should go to; null when no role fits. */
  readonly expected: string | null;
}

export interface RoutingSet {
  readonly roles: RoutingCandidate[];
  readonly requests: LabelledRequest[];
}

/**
 * The labelled set: every domain × activity as a role (130), and `requests` requests of one
 * phrasing family, `noMatchShare` of them matching no role. A request says what it wants in words
 * some role's text names, in another form: other openers and closers, the domain's aliases, other
 * verbs of the activity than the description's, inflections, word order and typos.
 */
export function routingSet(options: {
  seed: number;
  phrasing: Phrasing;
  requests: number;
  noMatchShare?: number;
  typoRate?: number;
  /** Ask with synonyms no role's text names (the `unseen` slice) instead of the named ones. */
  unseenSynonyms?: boolean;
}): RoutingSet {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  // The roles depend on the seed's first draws only, so both phrasing families see the same roles for one seed.
  const roles = roleSet(seededRandom(options.seed ^ 0x5bd1e995));
  const family = phrasings[options.phrasing];
  const requests: LabelledRequest[] = [];
  for (let i = 0; i < options.requests; i++) {
    const noMatch = random() < (options.noMatchShare ?? 0.15);
    const domain = noMatch ? pick(unknownDomains) : pick(domains);
    const activity = pick(activities);
    const verb = options.unseenSynonyms === true ? pick(activity.unseen) : pick([...activity.verbs, ...activity.alsoSaid]);
    const object = family.objectForms[Math.floor(random() * family.objectForms.length)]?.replace('{object}', pick(domain.objects)) ?? '';
    const domainName = pick(domain.names);
    const core = random() < 0.5 ? `${verb} ${object} in ${domainName}` : `${verb} ${domainName} ${object.replace(/^(my|the|our|this|some|a) /, '')}`;
    let text = `${pick(family.openers)} ${core}${pick(family.closers)}`.trim();
    if (random() < (options.typoRate ?? 0.1)) text = withTypo(text, random);
    requests.push({ text, expected: noMatch ? null : `role-${domain.key}-${activity.key}` });
  }
  return { roles, requests };
}

function roleSet(random: () => number): RoutingCandidate[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const roles: RoutingCandidate[] = [];
  for (const domain of domains) {
    for (const activity of activities) {
      const [first, second] = shuffled(activity.verbs, random);
      const name = `${domain.key}-${activity.key}`;
      const objects = domain.objects.slice(0, 2).join(' and ');
      const description = `${capitalise(thirdPerson(first ?? ''))} and ${thirdPerson(second ?? '')} ${domain.names[0] ?? ''} ${objects}.`;
      // As people write prompts: the aliases of the domain, and the ways its work is asked for.
      const asked = shuffled(activity.alsoSaid, random);
      const aliases = domain.names.slice(1).join(', ');
      const prompt =
        `You are a ${domain.names[0] ?? ''} (${aliases}) ${activity.agent}. ${pick(['Be thorough.', 'Be concise.', 'Explain your reasoning.'])} ` +
        `People ask you to ${[...activity.verbs, ...asked].join(', ')} their ${domain.objects.join(', ')}.`;
      roles.push({ id: `role-${name}`, name, fields: { name, description, prompt } });
    }
  }
  return roles;
}

/** `count` roles for timing: the labelled ones, then made-up ones of words drawn from them. */
export function manyRoles(count: number, seed: number): RoutingCandidate[] {
  const random = seededRandom(seed);
  const base = roleSet(seededRandom(seed ^ 0x5bd1e995));
  const words = [...new Set(base.flatMap((role) => Object.values(role.fields).join(' ').split(/\s+/)))];
  const roles = base.slice(0, count);
  for (let i = roles.length; i < count; i++) {
    const draw = (n: number): string => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
    const name = `role-${i}-${draw(2).replaceAll(/\W+/g, '-').toLowerCase()}`;
    roles.push({ id: `role-x${i}`, name, fields: { name, description: draw(12), prompt: draw(30) } });
  }
  return roles;
}

/** Swaps two neighbouring letters of a random word of four letters or more, as fast typing does. */
function withTypo(text: string, random: () => number): string {
  const words = text.split(' ');
  const long = words.map((word, index) => (/^[a-z]{4,}$/i.test(word) ? index : -1)).filter((index) => index !== -1);
  if (long.length === 0) return text;
  const at = long[Math.floor(random() * long.length)] ?? 0;
  const word = words[at] ?? '';
  const i = 1 + Math.floor(random() * (word.length - 2));
  words[at] = word.slice(0, i) + (word[i + 1] ?? '') + (word[i] ?? '') + word.slice(i + 2);
  return words.join(' ');
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** "fix" → "fixes", "speed up" → "speeds up", "tidy" → "tidies". */
function thirdPerson(verb: string): string {
  const [head = '', ...rest] = verb.split(' ');
  const inflected = /(s|x|sh|ch)$/.test(head) ? `${head}es` : /[^aeiou]y$/.test(head) ? `${head.slice(0, -1)}ies` : `${head}s`;
  return [inflected, ...rest].join(' ');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
