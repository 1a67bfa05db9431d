import { capitalize } from './ai.english.js';
import type { Tone } from './ai.provider.js';

/**
 * The built-in writer's phrase banks, one per tone. Every line either carries a fact it is given
 * (the name, the category, an attribute, a feature, an option, a keyword) or carries none at
 * all: no line may claim quality, materials, origin, availability, shipping or anything else the
 * input does not say (the options a product is offered in are said, and only by `optionLines`). `name` is the product as the text names it (`the Aurora Desk Lamp`); the writer
 * capitalizes the first sentence of a line, and a line that goes on after `.`, `!` or `?` capitalizes
 * what starts its next sentence itself (`Psst! ${capitalize(n)} ...`).
 */

type Named = (name: string) => string;

export interface ToneBank {
  /** Opening sentences naming the product. */
  intros: Named[];
  /** Opening sentences naming the product and its category (`category` reads after of/for/in). */
  categoryIntros: ((name: string, category: string) => string)[];
  /** A sentence placing the product in its category, when the opening did not. */
  categoryLines: ((category: string, label: string) => string)[];
  /** Optional openers for a fact sentence about `it`; '' leaves the sentence bare. */
  leadIns: string[];
  /** A list of noun-phrase features (`an adjustable arm, a weighted base, and two USB ports`). */
  nounFeatures: ((list: string) => string)[];
  /** A list of adjective features (`water-resistant and machine washable`). */
  adjectiveFeatures: ((list: string) => string)[];
  /**
   * The options it is offered in, as phrases after a verb (`in sizes S, M, and L, and in black`,
   * `with a choice of storage (128 GB or 256 GB)`); none may suggest a choice, as there may be
   * one value only.
   */
  optionLines: ((offer: string) => string)[];
  /** Keywords, joined with `or`. */
  keywordLines: ((keywords: string, name: string) => string)[];
  /** Fact-free sentences that set the tone; used to reach the requested length. */
  fillers: Named[];
  /** Fact-free sentences mentioning the category. */
  categoryFillers: ((category: string, name: string) => string)[];
  closings: Named[];
}

const professional: ToneBank = {
  intros: [
    (n) => `Introducing ${n}, presented here with everything you need to know.`,
    (n) => `Meet ${n}, a considered choice for buyers who value clarity.`,
    (n) => `Allow us to introduce ${n}.`,
    (n) => `${n} deserves a place on your shortlist.`,
    (n) => `Discover ${n}, a product that lets its details do the talking.`,
    (n) => `${n} is worth getting to know.`,
  ],
  categoryIntros: [
    (n, c) => `Introducing ${n}, from our collection of ${c}.`,
    (n, c) => `${n} is a confident choice for anyone shopping for ${c}.`,
    (n, c) => `Meet ${n}, a considered addition to our range of ${c}.`,
    (n, c) => `When it comes to ${c}, ${n} deserves your attention.`,
    (n, c) => `Discover ${n}, one of the standouts in our selection of ${c}.`,
  ],
  categoryLines: [
    (c) => `It belongs to our range of ${c}.`,
    (c) => `It is part of our selection of ${c}.`,
    (c) => `You will find it in our collection of ${c}.`,
  ],
  leadIns: ['', '', '', 'Notably, ', 'In detail, ', 'For reference, '],
  nounFeatures: [
    (l) => `It features ${l}.`,
    (l) => `Highlights include ${l}.`,
    (l) => `Key features include ${l}.`,
    (l) => `It offers ${l}.`,
  ],
  adjectiveFeatures: [(l) => `It is ${l}.`, (l) => `It is also ${l}.`],
  optionLines: [(o) => `It is available ${o}.`, (o) => `It is offered ${o}.`],
  keywordLines: [
    (k) => `It is a strong candidate for anyone looking for ${k}.`,
    (k, n) => `If you are searching for ${k}, ${n} deserves your attention.`,
    (k) => `Buyers looking for ${k} will find it worth a closer look.`,
    (k) => `It is a natural fit for anyone in the market for ${k}.`,
  ],
  fillers: [
    () => 'It is a considered choice for customers who value clarity in what they buy.',
    () => 'Everything stated here comes straight from the product information.',
    () => 'It is the kind of product that earns its place through substance rather than noise.',
    () =>
      'Choosing well starts with knowing exactly what you are getting, and the essentials are set out plainly here.',
    () => 'It is a straightforward pick for anyone who prefers substance over spectacle.',
    () => 'Whether it is for yourself or for someone else, it is worth a closer look.',
    (n) => `If you are comparing options, put ${n} on your shortlist.`,
    () => 'Take the time to consider how it fits your needs.',
    () => 'It suits buyers who know what they want and like it presented clearly.',
    () => 'Consider how it would fit into your routine.',
    () => 'It is presented here as it is, with nothing overstated.',
    () => 'Look closely and decide for yourself.',
    () => 'It is a sensible place to start your search.',
    (n) => `We are pleased to include ${n} in our range.`,
    () => 'Good decisions rest on good information, and that is what this page aims to give you.',
    () => 'It is an option that rewards a careful look.',
    () => 'Weigh it against your requirements and you will know quickly whether it is the right fit.',
    (n) => `${n} is well worth your consideration.`,
    () => 'It makes a thoughtful gift as well as a sound purchase for yourself.',
    () => 'Clear facts, plainly stated: that is the spirit of this description.',
    () => 'It is worth reviewing alongside any alternatives you are weighing.',
    () => 'The essentials are here; the decision is yours.',
    () => "Every buyer's needs differ, so take a moment to match it against yours.",
    () => 'It holds up well to a careful reading.',
  ],
  categoryFillers: [
    (c) => `For anyone browsing ${c}, it is a natural place to pause.`,
    (c, n) => `For anyone shopping for ${c}, ${n} merits a closer look.`,
    (c) => `It is a welcome option for anyone comparing ${c}.`,
  ],
  closings: [
    (n) => `Add ${n} to your order today.`,
    (n) => `Order ${n} today.`,
    (n) => `Make ${n} part of your next order.`,
    (n) => `Choose ${n} with confidence.`,
  ],
};

const friendly: ToneBank = {
  intros: [
    (n) => `Say hello to ${n}!`,
    (n) => `Meet ${n}, your new favorite find.`,
    (n) => `Get ready to fall for ${n}.`,
    (n) => `Here's ${n}, and we think you're going to like it.`,
    (n) => `Looking for something new? Say hi to ${n}.`,
    (n) => `Allow us to introduce you to ${n}.`,
  ],
  categoryIntros: [
    (n, c) => `Looking for something special in ${c}? Meet ${n}.`,
    (n, c) => `If you love ${c}, you're going to love ${n}.`,
    (n, c) => `Say hello to ${n}, a happy addition to our collection of ${c}.`,
    (n, c) => `Shopping for ${c}? Let us introduce you to ${n}.`,
  ],
  categoryLines: [
    (c) => `It's part of our collection of ${c}.`,
    (c) => `It's one of our favorites in ${c}.`,
    (c) => `Fans of ${c}, this one's for you.`,
  ],
  leadIns: ['', '', '', "Here's the scoop: ", 'Good to know: ', 'Oh, and ', 'Even better, '],
  nounFeatures: [
    (l) => `You also get ${l}.`,
    (l) => `It comes with ${l}.`,
    (l) => `Expect ${l}.`,
    (l) => `Best of all, there's ${l}.`,
    (l) => `We love that it has ${l}.`,
  ],
  adjectiveFeatures: [(l) => `It's ${l}, too.`, (l) => `It's ${l}, which is always a bonus.`],
  optionLines: [
    (o) => `It comes ${o}.`,
    (o) => `You can get it ${o}.`,
    (o) => `Good to know: it comes ${o}.`,
  ],
  keywordLines: [
    (k) => `Searching for ${k}? You've come to the right place.`,
    (k) => `If you've been hunting for ${k}, your search might just be over.`,
    (k, n) => `Anyone on the lookout for ${k} will want to take a peek at ${n}.`,
    (k) => `Is your search for ${k} still on? This one's worth a look.`,
  ],
  fillers: [
    () => "We think you're going to love it.",
    () => "Honestly, what's not to like?",
    () => "It's the kind of find that makes shopping fun.",
    () => 'Go ahead and picture it in your everyday life.',
    () => 'Sometimes the right pick is the one that just clicks, and this could be it.',
    () => 'It might just become one of your favorites.',
    () => "It's a lovely treat for yourself or a thoughtful gift for someone you care about.",
    () => 'Trust us, this one is worth a closer look.',
    () => 'Think of it as a simple upgrade to your day.',
    () => 'You deserve nice things, and this is one of them.',
    () => "It's easy to see why it caught our eye.",
    () => "It's the sort of thing you'll be glad you picked up.",
    () => "We're pretty sure it'll put a smile on your face.",
    () => 'Why not make today the day you treat yourself?',
    () => 'Your future self will thank you.',
    () => "Have a look and see if it's the one for you.",
    (n) => `We have a good feeling about ${n}, and we hope you will too.`,
    () => 'Little joys add up, and we think this could be one of yours.',
    () => "It's always nice when something simply feels right.",
    (n) => `Give ${n} a closer look; we think you'll be glad you did.`,
    () => "Go on, take a closer look. We'll wait!",
    () => "It's one of those finds that's hard to stop thinking about.",
    () => "Here's to treating yourself well.",
    () => 'A little something for you never hurts.',
  ],
  categoryFillers: [
    (c) => `If you love ${c} as much as we do, you're in for a treat.`,
    (c, n) => `Among everything in ${c}, ${n} has a special place in our hearts.`,
    (c) => `It's a happy pick for anyone shopping for ${c}.`,
  ],
  closings: [
    () => 'Go on, add it to your cart!',
    (n) => `Treat yourself to ${n} today.`,
    () => 'Grab yours today. You deserve it!',
    (n) => `Give ${n} a spot in your cart today.`,
  ],
};

const luxury: ToneBank = {
  intros: [
    (n) => `Presenting ${n}, an invitation to indulge.`,
    (n) => `Discover ${n}, where refinement meets intention.`,
    (n) => `Some possessions simply stand apart; ${n} is one of them.`,
    (n) => `${n} is a study in quiet elegance.`,
    (n) => `Allow us to present ${n}.`,
  ],
  categoryIntros: [
    (n, c) => `Presenting ${n}, a refined highlight of our collection of ${c}.`,
    (n, c) => `Discover ${n}, a distinguished presence within our collection of ${c}.`,
    (n, c) => `In the world of ${c}, ${n} is a statement of taste.`,
    (n, c) => `For the connoisseur of ${c}, we present ${n}.`,
  ],
  categoryLines: [
    (c) => `It takes its place in our collection of ${c}.`,
    (c) => `It brings a note of distinction to our selection of ${c}.`,
  ],
  leadIns: ['', '', '', 'Consider the details: ', 'Note, too, that ', 'Attention rests on the particulars: '],
  nounFeatures: [
    (l) => `Thoughtful touches include ${l}.`,
    (l) => `It is distinguished by ${l}.`,
    (l) => `Among its details: ${l}.`,
    (l) => `It is graced with ${l}.`,
  ],
  adjectiveFeatures: [(l) => `It is, moreover, ${l}.`, (l) => `It is ${l}.`],
  optionLines: [(o) => `It is offered ${o}.`, (o) => `It is presented ${o}.`],
  keywordLines: [
    (k) => `For those who seek ${k}, it is a compelling answer.`,
    (k) => `It is a refined choice for anyone drawn to ${k}.`,
    (k, n) => `Those with a taste for ${k} will find ${n} a worthy companion.`,
  ],
  fillers: [
    () => 'It is an expression of quiet confidence.',
    (n) => `True refinement is never loud, and ${n} understands that.`,
    () => 'Some things are chosen; others are treasured.',
    () => 'It invites you to slow down and savor the details.',
    () => 'Elegance lies in restraint.',
    () => 'It speaks to those who appreciate the finer things.',
    () => 'Indulgence, after all, is an art.',
    () => 'Let it become part of your own story of taste.',
    () => 'It is a choice that speaks softly yet leaves a lasting impression.',
    () => 'Luxury lives in the details, and the details are yours to discover.',
    () => 'It rewards a discerning eye.',
    () => 'Allow yourself a moment of pure indulgence.',
    (n) => `Taste is personal; ${n} is an invitation to express yours.`,
    () => 'Beauty, when it is right, needs no explanation.',
    () => 'It belongs in a life lived with intention.',
    () => 'Discerning tastes deserve nothing less.',
    () => 'Savor the pleasure of choosing well.',
    () => 'The finest choices are rarely the loudest.',
    () => 'It is the kind of acquisition one returns to with quiet satisfaction.',
    () => 'Desire, refined, becomes a decision.',
    () => 'Grace is found in the details one notices slowly.',
    () => 'Let the everyday become something more.',
    () => 'Choose it for yourself, or as a gesture of impeccable taste.',
    () => 'Refinement is a habit, and this is a fine place to begin.',
  ],
  categoryFillers: [
    (c) => `It brings a quiet distinction to the world of ${c}.`,
    (c, n) => `Within our collection of ${c}, ${n} is a choice made with intention.`,
    (c) => `It elevates what one expects of ${c}.`,
  ],
  closings: [
    (n) => `Make ${n} yours.`,
    (n) => `Indulge in ${n} today.`,
    (n) => `Bring ${n} into your world.`,
    (n) => `Allow ${n} to become part of your story.`,
  ],
};

const playful: ToneBank = {
  intros: [
    (n) => `Drumroll, please: ${n} is here!`,
    (n) => `Stop scrolling, because ${n} just entered the chat.`,
    (n) => `Psst! ${capitalize(n)} would like a word.`,
    (n) => `Plot twist: the thing you didn't know you needed is ${n}.`,
    (n) => `Hold onto your hats, folks, it's ${n}!`,
  ],
  categoryIntros: [
    (n, c) => `Ready to level up your ${c}? Meet ${n}.`,
    (n, c) => `Who says ${c} can't be fun? Not ${n}.`,
    (n, c) => `Breaking news from the world of ${c}: ${n} has arrived!`,
    (n, c) => `Attention, fans of ${c}: ${n} is in the house!`,
  ],
  categoryLines: [
    (_c, label) => `Category: ${label}. Vibe: unbeatable.`,
    (c) => `It's here to shake up the world of ${c}.`,
    (c) => `Consider it the life of the party in ${c}.`,
  ],
  leadIns: ['', '', 'Fun fact: ', 'Get this: ', 'Bonus: ', 'And yes, '],
  nounFeatures: [
    (l) => `It rolls with ${l}.`,
    (l) => `Bonus points for ${l}.`,
    (l) => `It comes with ${l}, because why not?`,
    (l) => `Say hello to ${l}.`,
  ],
  adjectiveFeatures: [(l) => `It's ${l}. Nice!`, (l) => `Oh, and it's ${l}.`],
  optionLines: [
    (o) => `Guess what? It comes ${o}.`,
    (o) => `It shows up ${o}.`,
    (o) => `It comes ${o}, and we're here for it.`,
  ],
  keywordLines: [
    (k) => `On the hunt for ${k}? Consider the hunt over!`,
    (k) => `Did somebody say ${k}? We heard you loud and clear.`,
    (k) => `Searching for ${k}? Your search just got a whole lot more fun.`,
    (k, n) => `Dreaming of ${k}? ${capitalize(n)} is ready when you are.`,
  ],
  fillers: [
    () => 'Trust us, your cart is going to love this.',
    () => 'Warning: may cause spontaneous happy dances.',
    () => "We're not saying it's magic, but we're not ruling it out either.",
    () => "It's basically a high five in product form.",
    () => 'Resistance is futile (and honestly, why resist?).',
    () => 'Cue the confetti!',
    () => 'Go ahead, do a little victory dance.',
    () => "It's the main character your shopping list was missing.",
    () => 'Is it love at first sight? We think so.',
    () => "Your 'treat yourself' moment just found its hero.",
    () => 'Some things just spark joy, and this is one of them.',
    () => "Life's too short for boring choices.",
    () => 'Zero regrets, maximum smiles.',
    () => 'Consider this your sign.',
    () => 'Add a little sparkle to your day.',
    () => "We'd wink at you right now if we could.",
    () => "Your shopping cart called. It's feeling a little empty.",
    () => 'Happiness, now in product form.',
    () => "Spoiler alert: you're going to like this one.",
    () => 'High fives all around!',
    () => 'Go on, make your day a little brighter.',
    () => 'This is your friendly reminder that you deserve fun things.',
    () => 'Tell your wish list the good news.',
    (n) => `Fair warning: ${n} is very hard to say no to.`,
    () => 'Yes, we are this excited. No, we will not calm down.',
    (n) => `Roses are red, violets are blue, ${n} is waiting for you.`,
  ],
  categoryFillers: [
    (c) => `Who knew ${c} could be this much fun?`,
    (c) => `Everyday ${c}? Not on our watch.`,
    (c, n) => `In the great game of ${c}, ${n} just scored a point.`,
  ],
  closings: [
    () => 'Add it to your cart, and your future self will high-five you.',
    () => 'Go on, click that button. You know you want to!',
    () => 'Cart. Now. Thank us later.',
    (n) => `Make ${n} yours before your wish list gets jealous.`,
  ],
};

const technical: ToneBank = {
  intros: [
    (n) => `Product overview: ${n}.`,
    (n) => `This is a technical summary of ${n}.`,
    (n) => `The following summarizes the key facts of ${n}.`,
    (n) => `Here are the essential details of ${n}.`,
  ],
  categoryIntros: [
    (n, c) => `Product overview: ${n}, listed under ${c}.`,
    (n, c) => `This is a technical summary of ${n}, from our range of ${c}.`,
    (n, c) => `The following summarizes ${n}, a product in our selection of ${c}.`,
  ],
  categoryLines: [(_c, label) => `Category: ${label}.`, (c) => `It is listed under ${c}.`],
  leadIns: [''],
  nounFeatures: [
    (l) => `It features ${l}.`,
    (l) => `Included features: ${l}.`,
    (l) => `Its features comprise ${l}.`,
  ],
  adjectiveFeatures: [(l) => `It is ${l}.`, (l) => `Properties: ${l}.`],
  optionLines: [(o) => `It is available ${o}.`],
  keywordLines: [
    (k) => `It is relevant to searches for ${k}.`,
    (k) => `Suitable for buyers searching for ${k}.`,
    (k, n) => `Buyers comparing options for ${k} should consider ${n}.`,
  ],
  fillers: [
    () => 'All values listed here come from the product record.',
    () => 'Check the listed values against your requirements before ordering.',
    () => 'Compare these details with your current setup to confirm the fit.',
    () =>
      'For an accurate comparison, weigh each specification against the alternatives you are considering.',
    () => 'Values are stated as recorded, without rounding or embellishment.',
    () => 'Verify that it meets your requirements before purchase.',
    () => 'This summary is limited to documented facts.',
    () => 'No claims are made beyond the data stated here.',
    () => 'Use this overview as a starting point for your evaluation.',
    () => 'The information is organized for quick reference.',
    () => 'Review each parameter in the context of your intended use.',
    () => 'Where a detail is not listed, it has not been specified.',
    () => 'This description is generated from structured product data.',
    () => 'Keep this summary at hand when comparing similar products.',
    () => 'Specifications are provided to support an informed decision.',
    () => 'Consult the product record for any detail not covered here.',
    () => 'The overview favors precision over promotion.',
    () => 'Cross-check the stated values with your own measurements or requirements.',
    () => 'The data here is intended to make comparison straightforward.',
    () => 'Each stated value can be checked against the product record.',
    () => 'Confirm suitability for your use case before ordering.',
    () => 'Assess the listed details against your selection criteria.',
    () => 'This overview is intended for side-by-side comparison.',
    (n) => `Evaluate ${n} against the requirements of your application.`,
  ],
  categoryFillers: [
    (c) => `Compare it with other ${c} on the values stated here.`,
    (c) => `Its listing under ${c} reflects its product record.`,
  ],
  closings: [
    (n) => `Order ${n} once it meets your requirements.`,
    (n) => `Add ${n} to your order after confirming the specifications.`,
    (n) => `If the specifications match your needs, order ${n} today.`,
  ],
};

export const PHRASES: Readonly<Record<Tone, ToneBank>> = {
  professional,
  friendly,
  luxury,
  playful,
  technical,
};
