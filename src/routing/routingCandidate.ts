/**
 * Something work can be routed to, as the router sees it: an id, a name, and named text fields
 * (a role's `name`, `description`, `prompt`, and the skills its policy names).
 * The router knows no field by meaning, only by the weight its options give each name, so a new
 * source of text is a new field, not a change to the router.
 */
export interface RoutingCandidate {
  readonly id: string;
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
}
