/**
 * Every `code` an error envelope can carry, with what it means: the API reference lists them
 * (shared/openapi), and with SESAME_CHECK_SCHEMAS=1 the stack fails an answer whose code is not
 * here, so a new code cannot go undocumented.
 */
export const ERROR_CODES = {
  BAD_REQUEST: 'The request is malformed (unparseable JSON, a missing header, an unusable value)',
  VALIDATION_ERROR: 'A field is invalid; `errors` lists each problem with its field path',
  INVALID_API_KEY: 'The key is missing, unknown, revoked, or of the wrong kind for the route',
  UNAUTHORIZED: 'No valid session cookie (user routes)',
  INVALID_CREDENTIALS: 'Wrong email or password',
  TOO_MANY_LOGIN_ATTEMPTS: 'Too many failed logins for this address; wait and retry',
  FORBIDDEN: "The caller's role does not allow this",
  CSRF_HEADER_MISSING:
    'A request signed in with the session cookie that changes something carries no X-Requested-With header',
  PROJECT_DISABLED: 'The project is disabled; its keys are refused',
  SIGNUP_DISABLED: 'Signup is closed on this deployment',
  NOT_FOUND: 'No such route, or no such thing in this project',
  RATE_LIMIT_EXCEEDED: 'Too many requests; retry after the Retry-After header',
  INVALID_IDEMPOTENCY_KEY: 'The Idempotency-Key header is not 1 to 255 printable ASCII characters',
  IDEMPOTENCY_KEY_REUSED: 'The Idempotency-Key was used with a different request',
  INVALID_TOKEN: 'The token (email verification, password reset, invitation) is unknown or expired',
  INVALID_INVITATION: 'The invitation is unknown, expired or used',
  INVITATION_EMAIL_MISMATCH: 'The invitation was sent to another address',
  INVITATIONS_NOT_MAILED:
    'This deployment sends no account mail (no SYSTEM_FROM): an invitation would reach nobody',
  EMAIL_ALREADY_REGISTERED: 'A user with this email exists',
  ALREADY_MEMBER: 'The user is a member of the project already',
  LAST_OWNER: 'The project would be left without an owner',
  MEMBERS_BUSY: "The project's members are being changed by another request; retry",
  KEYS_BUSY: "The project's keys are being changed by another request; retry",
  CONTACT_BUSY: 'The contact is being changed by another request; retry',
  CONTACT_EMAIL_TAKEN: 'Another contact has this email',
  TEMPLATE_BUSY: 'The template is in use (a campaign or workflow names it)',
  TEMPLATE_RENDER_ERROR: 'The template could not be rendered with the data given',
  MESSAGE_TOO_LARGE: 'The built message is over the size limit',
  EMAIL_SEND_FAILED: 'The email provider refused every recipient',
  EMAIL_SEND_THROTTLED: 'The email provider is throttling or unavailable; retry after Retry-After',
  ALREADY_SUBSCRIBED: 'The contact is subscribed already',
  DOMAIN_ALREADY_ADDED: 'The domain is added to this project already',
  DOMAIN_IN_USE: 'The domain belongs to another project of this deployment',
  SEGMENT_BUSY: 'The segment is being changed by another request; retry',
  SEGMENT_IN_USE: 'A campaign or workflow uses the segment',
  CAMPAIGN_BUSY: 'The campaign is being changed by another request; retry',
  CAMPAIGN_SENDING: 'The campaign is sending; it cannot change now',
  CAMPAIGN_NOT_EDITABLE: 'Only a draft campaign can be edited',
  CAMPAIGN_NOT_SENDABLE: 'The campaign is not complete, or not in a state that can be sent',
  CAMPAIGN_NOT_CANCELLABLE: 'Only a scheduled or sending campaign can be cancelled',
  CAMPAIGN_ALREADY_SENT:
    "The campaign's send has started: its audience is no longer counted (its stats count its recipients)",
  WORKFLOW_BUSY: 'The workflow is being changed by another request; retry',
  WORKFLOW_HAS_ACTIVE_EXECUTIONS: 'The workflow has running or waiting executions',
  TRANSITION_EXISTS: 'The steps are joined by a transition already',
  WORKFLOW_REENTRY:
    'The contact is in this workflow already, or has been and the workflow allows no re-entry',
  EXECUTION_BUSY: 'The execution is being changed by another request; retry',
  EXECUTION_ENDED: 'The execution has ended',
  BILLING_LIMIT_REACHED: "The project's monthly cap would be passed: nothing was sent",
  SUBSCRIPTION_ACTIVE: 'The project has an active Stripe subscription; cancel it first',
  BILLING_DISABLED: 'This deployment has no Stripe account configured',
  NO_BILLING_ACCOUNT: 'The project has no Stripe customer yet (no checkout was completed)',
  BILLING_PROVIDER_ERROR: 'Stripe answered with an error',
  EVENT_IN_PROGRESS: 'Another delivery of this Stripe event is being applied; Stripe retries',
  INVALID_STRIPE_SIGNATURE: 'The Stripe-Signature header does not verify',
  INVALID_SNS_MESSAGE: 'The SNS message is malformed or its signature does not verify',
  SNS_TOPIC_NOT_ACCEPTED: 'The SNS message comes from a topic this deployment does not accept',
  FILE_TOO_LARGE: 'The uploaded file is over the size limit',
  INTERNAL_SERVER_ERROR: 'An unexpected error (or, on a send, an unusable sender domain)',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);
