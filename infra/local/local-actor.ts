/** Header naming the operator on the local admin API. There is no IAM locally: whoever reaches the port is trusted. */
const ACTOR_HEADER = 'x-leasefence-actor';

/** Actor recorded in audit entries locally when the request (or the CLI's --actor) names none. */
const DEFAULT_LOCAL_ACTOR = 'local-operator';

export { ACTOR_HEADER, DEFAULT_LOCAL_ACTOR };
