import { MatchersV3 } from '@pact-foundation/pact';

/** The CVAT user every annotation-sim interaction acts as (a regular user, privilege `user`). */
export const USER = { name: 'alice', id: 2, token: '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b' } as const;
export const PROJECT = { id: 1, name: 'Street scenes' } as const;

/** What the consumers send on every API call: token auth and CVAT's media type. */
export const CVAT_REQUEST = { Authorization: `Token ${USER.token}`, Accept: 'application/vnd.cvat+json' };

/** CVAT renders JSON as `application/vnd.cvat+json` (reference cvat-webhooks-events.md §1.1). */
export const CVAT_RESPONSE = {
  'Content-Type': MatchersV3.regex(/^application\/vnd\.cvat\+json\b/, 'application/vnd.cvat+json'),
};

/** DRF ≥ 3.15 passes Django's message through for an unknown object id (reference §4.2). */
export const DRF_NOT_FOUND = (model: string) => ({ detail: `No ${model} matches the given query.` });
