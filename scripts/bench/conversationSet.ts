// Long multi-session conversations made deterministically from a seed, with facts planted in
// them, later updates of some, distractor turns that share their words, and paraphrased
// questions whose evidence turns are known: the set the retrieval-quality bench scores L4 on.
// The wording comes from many templates picked at random, for statements and questions alike, so
// no retrieval can be tuned to one phrasing; questions seldom repeat a statement's words.

export type QuestionKind = 'single-hop' | 'multi-hop' | 'temporal';

export interface Turn {
  readonly id: number;
  readonly session: number;
  readonly text: string;
}

export interface Question {
  readonly kind: QuestionKind;
  readonly text: string;
  /** The turns that hold the answer (a multi-hop question has two). */
  readonly evidence: readonly number[];
}

export interface Conversation {
  readonly turns: readonly Turn[];
  readonly questions: readonly Question[];
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const fill = (template: string, values: object): string =>
  template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const value: unknown = (values as Record<string, unknown>)[key];
    return typeof value === 'string' ? value : key;
  });

const names = ['Maya', 'Tomas', 'Priya', 'Owen', 'Lucia', 'Kenji', 'Ines', 'Dmitri', 'Amara', 'Felix', 'Sofia', 'Raul'];
const relatives = ['Lena', 'Marco', 'Hana', 'Theo', 'Zara', 'Nils', 'Rosa', 'Elias'];
const pets = ['Biscuit', 'Pepper', 'Juniper', 'Mochi', 'Rufus', 'Clementine', 'Waffles', 'Ziggy'];
const petKinds = ['dog', 'cat', 'rabbit', 'parrot', 'puppy', 'kitten'];
const jobs = ['nurse', 'architect', 'data analyst', 'carpenter', 'pilot', 'physics teacher', 'paramedic', 'sound engineer'];
const employers = ['Northwind', 'Halcyon Labs', 'the city hospital', 'Bluefin Studios', 'Orbital Freight', 'the public library'];
const cities = ['Lisbon', 'Utrecht', 'Tallinn', 'Valencia', 'Krakow', 'Ghent', 'Bergen', 'Bologna'];
const hobbies = ['pottery', 'rock climbing', 'chess', 'birdwatching', 'sourdough baking', 'salsa dancing', 'woodworking', 'kayaking'];
const foods = ['peanuts', 'shellfish', 'gluten', 'sesame', 'dairy', 'kiwi'];
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const statements = {
  pet: [
    'We finally adopted a {kind} last weekend, {pet} is settling in great.',
    'Say hello to {pet}, the {kind} we brought home from the shelter!',
    'I named the new {kind} {pet}, after my grandmother’s favourite song.',
    '{pet} the {kind} chewed through another charger cable this morning.',
    'Guess who has a {kind} now? Me. The little one is called {pet}.',
  ],
  job: [
    'I started a new position as a {job} at {employer} this week.',
    'Big news: {employer} hired me, I am their new {job}.',
    'Work is hectic, being a {job} at {employer} is more than I expected.',
    'I handed in my notice; from Monday I am a {job} with {employer}.',
  ],
  city: [
    'We signed the lease, so I am living in {city} now.',
    'The move is done, our new flat is in {city}, close to the river.',
    'I relocated to {city} for good, the boxes are still everywhere.',
    'Home is {city} these days, I love the markets here.',
  ],
  hobby: [
    'I have got really into {hobby} lately, every Saturday morning.',
    'My new obsession is {hobby}, I signed up for a course.',
    'Spent the whole weekend on {hobby} again, no regrets.',
  ],
  allergy: [
    'I can’t eat anything with {food}, I’m badly allergic.',
    'The doctor confirmed I have an allergy to {food}.',
    'Please order nothing with {food} for me, my throat swells up.',
  ],
  relative: [
    'My {relation} {rel} is visiting us next month.',
    'I had lunch with my {relation}, {rel}, yesterday.',
    '{rel}, my younger {relation}, called me for advice.',
  ],
  relativeJob: [
    '{rel} just got a job as a {job}.',
    'Apparently {rel} is working as a {job} now, good for them.',
    '{rel} told me the {job} training finally paid off.',
  ],
  relativeCity: ['{rel} moved to {city} in the spring.', '{rel} is renting a place in {city} now.', 'These days {rel} lives over in {city}.'],
};

const questions = {
  pet: ['What is the name of {name}’s pet?', 'What did {name} call the animal they adopted?', 'Which animal joined {name}’s household, and what is it called?'],
  jobNow: ['What is {name}’s current job?', 'Which employer does {name} work for at present?', 'After changing jobs, what is {name} doing now?'],
  jobBefore: ['What job did {name} have before switching?', 'What was {name}’s previous role?'],
  cityNow: ['Where does {name} live at the moment?', 'Which city did {name} most recently move to?', 'What is {name}’s latest home town?'],
  cityBefore: ['Where did {name} live before the most recent move?', 'Which city did {name} leave behind?'],
  hobby: ['What pastime has {name} picked up?', 'How does {name} spend free weekends?', 'What activity is {name} keen on?'],
  allergy: ['What food must {name} avoid?', 'Is {name} allergic to anything?', 'Which ingredient makes {name} ill?'],
  when: ['When did {name} adopt the {kind}?', 'In which month did {name} get a pet?'],
  relativeJob: ['What does {name}’s {relation} do for work?', 'What is the profession of {name}’s {relation}?'],
  relativeCity: ['Which city does {name}’s {relation} live in?', 'Where is {name}’s {relation} living these days?'],
};

// Turns that share words with the planted facts without holding them: the distractors.
const distractors = [
  'My neighbour’s {kind} barks all night, it drives me mad.',
  'Did you read that article about {city}? The photos were stunning.',
  'A friend of a friend is a {job}, the hours sound brutal.',
  'There was a documentary about {hobby} on last night.',
  'The restaurant menu listed {food} in almost every dish.',
  'I saw a job advert from {employer} but it was not for me.',
  'My cousin keeps asking whether {city} is worth visiting.',
  'Someone at the park had a {kind} called {pet}, funny coincidence.',
  'I almost tried {hobby} once, but I never got round to it.',
  'We talked about moving, but honestly staying put is easier.',
];
const chatter = [
  'How was your week? Mine flew by.',
  'The weather has been miserable, rain every single day.',
  'I finally finished that novel you recommended, loved the ending.',
  'Work has been a bit much lately, I need a holiday.',
  'Have you watched the new season yet? No spoilers please.',
  'I tried a new recipe for dinner, it was a disaster.',
  'The train was late again this morning.',
  'Let’s catch up properly next time, I have to run.',
  'My phone screen cracked, I need to get it fixed.',
  'We should plan a trip together this summer.',
  'I am so tired, I barely slept last night.',
  'Congratulations again on the good news!',
];

interface Person {
  readonly name: string;
  readonly pet: string;
  readonly kind: string;
  readonly jobs: readonly [string, string];
  readonly employers: readonly [string, string];
  readonly cities: readonly [string, string];
  readonly hobby: string;
  readonly food: string;
  readonly relation: string;
  readonly rel: string;
  readonly relJob: string;
  readonly relCity: string;
}

function person(random: Random, name: string, rel: string): Person {
  const two = <T>(items: readonly T[]): [T, T] => {
    const first = pick(random, items);
    let second = pick(random, items);
    while (second === first) second = pick(random, items);
    return [first, second];
  };
  return {
    name,
    pet: pick(random, pets),
    kind: pick(random, petKinds),
    jobs: two(jobs),
    employers: two(employers),
    cities: two(cities),
    hobby: pick(random, hobbies),
    food: pick(random, foods),
    relation: pick(random, ['sister', 'brother', 'cousin']),
    rel,
    relJob: pick(random, jobs),
    relCity: pick(random, cities),
  };
}

/**
 * One conversation between two speakers over `sessions` dated sessions of `turnsPerSession`
 * turns: each speaker's facts are planted in sessions spread over the first half, the job and the
 * city of each are updated in the second half, and the rest of each session is distractors and
 * chatter. Questions: single-hop (one fact), multi-hop (a relative named in one turn, their job or
 * city in another), temporal (the current or the former value of an updated fact, the month of an
 * event).
 */
export function conversation(random: Random, sessions: number, turnsPerSession: number): Conversation {
  const [first, second] = [pick(random, names), pick(random, names)];
  const people = [person(random, first, pick(random, relatives)), person(random, second === first ? `${first}'s friend` : second, pick(random, relatives))];
  const slots = Array.from({ length: sessions }, () => [] as { speaker: number; text: string; key: string }[]);
  const plant = (session: number, speaker: number, key: string, text: string): void => {
    slots[Math.min(session, sessions - 1)]?.push({ speaker, text, key: `${speaker}:${key}` });
  };
  const half = Math.floor(sessions / 2);
  people.forEach((p, s) => {
    const at = (): number => Math.floor(random() * half);
    const values = { ...p, job: p.jobs[0], employer: p.employers[0], city: p.cities[0] };
    plant(at(), s, 'pet', fill(pick(random, statements.pet), values));
    plant(at(), s, 'job', fill(pick(random, statements.job), values));
    plant(at(), s, 'city', fill(pick(random, statements.city), values));
    plant(at(), s, 'hobby', fill(pick(random, statements.hobby), values));
    plant(at(), s, 'allergy', fill(pick(random, statements.allergy), values));
    const relAt = at();
    plant(relAt, s, 'relative', fill(pick(random, statements.relative), values));
    plant(relAt + 1 + Math.floor(random() * half), s, 'relativeJob', fill(pick(random, statements.relativeJob), { ...values, job: p.relJob }));
    plant(relAt + 1 + Math.floor(random() * half), s, 'relativeCity', fill(pick(random, statements.relativeCity), { ...values, city: p.relCity }));
    const updated = { ...p, job: p.jobs[1], employer: p.employers[1], city: p.cities[1] };
    plant(half + Math.floor(random() * half), s, 'jobNow', fill(pick(random, statements.job), updated));
    plant(half + Math.floor(random() * half), s, 'cityNow', fill(pick(random, statements.city), updated));
  });
  const turns: Turn[] = [];
  const evidence = new Map<string, number>();
  const year = 2023;
  for (let session = 0; session < sessions; session++) {
    const date = `${1 + Math.floor(random() * 28)} ${months[Math.floor((session * 12) / sessions)] ?? 'December'} ${year}`;
    const planted = slots[session] ?? [];
    const count = Math.max(turnsPerSession, planted.length + 2);
    const at = new Set<number>();
    while (at.size < planted.length) at.add(Math.floor(random() * count));
    const places = [...at].sort((a, b) => a - b);
    for (let i = 0; i < count; i++) {
      const index = places.indexOf(i);
      const plantedTurn = index < 0 ? undefined : planted[index];
      const speaker = plantedTurn?.speaker ?? i % 2;
      const other = people[Math.floor(random() * 2)] as Person;
      const text =
        plantedTurn?.text ??
        fill(random() < 0.45 ? pick(random, distractors) : pick(random, chatter), {
          kind: pick(random, petKinds),
          city: random() < 0.5 ? pick(random, other.cities) : pick(random, cities),
          job: random() < 0.5 ? other.jobs[0] : pick(random, jobs),
          hobby: pick(random, hobbies),
          food: pick(random, foods),
          employer: pick(random, employers),
          pet: pick(random, pets),
        });
      const id = turns.length;
      turns.push({ id, session, text: `${(people[speaker] as Person).name} (${date}): ${text}` });
      if (plantedTurn !== undefined) evidence.set(plantedTurn.key, id);
    }
  }
  const asked: Question[] = [];
  people.forEach((p, s) => {
    const ask = (kind: QuestionKind, templates: readonly string[], keys: readonly string[]): void => {
      const ids = keys.map((key) => evidence.get(`${s}:${key}`));
      if (ids.some((id) => id === undefined)) return;
      asked.push({ kind, text: fill(pick(random, templates), p), evidence: ids as number[] });
    };
    ask('single-hop', questions.pet, ['pet']);
    ask('single-hop', questions.hobby, ['hobby']);
    ask('single-hop', questions.allergy, ['allergy']);
    ask('multi-hop', questions.relativeJob, ['relative', 'relativeJob']);
    ask('multi-hop', questions.relativeCity, ['relative', 'relativeCity']);
    ask('temporal', questions.jobNow, ['jobNow']);
    ask('temporal', questions.cityNow, ['cityNow']);
    if (random() < 0.5) ask('temporal', questions.jobBefore, ['job']);
    else ask('temporal', questions.cityBefore, ['city']);
    ask('temporal', questions.when, ['pet']);
  });
  return { turns, questions: asked };
}
