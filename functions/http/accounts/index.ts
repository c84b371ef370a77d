/**
 * Accounts route group: signup, login, logout, the mailed verification and reset tokens, and the
 * signed-in user's own routes. Parses, calls one use case, sets or clears the session cookie.
 */
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie } from '../../../shared/accounts/cookies';
import { acceptInvitation, signupWithInvitation } from '../../../shared/accounts/invitations';
import { addMember, changeRole, listMembers, removeMember } from '../../../shared/accounts/members';
import {
  deleteUserProject,
  projectResetState,
  resetUserProject,
} from '../../../shared/accounts/project-removal';
import {
  createUserProject,
  projectSecurity,
  regenerateKeys,
  renameUserProject,
  setupState,
} from '../../../shared/accounts/projects';
import {
  invitationAcceptedAnswer,
  invitedAnswer,
  keysAnswer,
  meAnswer,
  memberAnswer,
  memberListAnswer,
  oauthConfigAnswer,
  projectAnswer,
  projectCreatedAnswer,
  projectDeletionAnswer,
  projectListAnswer,
  projectResetAnswer,
  securityAnswer,
  sentIfAnyAnswer,
  setupStateAnswer,
  signupAnswer,
  userAnswer,
} from '../../../shared/accounts/responses';
import {
  addMemberSchema,
  emailOnlySchema,
  loginSchema,
  memberParamSchema,
  memberRoleSchema,
  projectIdParamSchema,
  projectNameSchema,
  projectResetSchema,
  resetPasswordSchema,
  signupSchema,
  tokenSchema,
} from '../../../shared/accounts/schemas';
import {
  login,
  logout,
  me,
  myProjects,
  requestPasswordReset,
  requestVerification,
  resetPassword,
  signup,
  verifyEmail,
} from '../../../shared/accounts/service';
import { dynamoStore } from '../../../shared/composition/aws-wiring/dynamo';
import { sesMailer } from '../../../shared/composition/aws-wiring/ses-mailer';
import { sqsQueue } from '../../../shared/composition/aws-wiring/sqs';
import { ssmLinkSigningSecret } from '../../../shared/composition/aws-wiring/ssm';
import { successAnswer } from '../../../shared/http/answers';
import { cookieValue } from '../../../shared/http/auth/session';
import { lambdaEntry } from '../../../shared/http/lambda';
import { created, json, ok } from '../../../shared/http/response';
import {
  type AnyRouteImpl,
  type ApiRequest,
  httpGroup,
  type SessionRequest,
  sessionRoute,
} from '../../../shared/http/stack';
import { parse } from '../../../shared/http/validation';
import type { Deps } from '../../../shared/ports';

/** What the token routes answer whether or not the address has an account. */
const SENT_IF_ANY = { success: true, message: 'If the address has an account, a mail is on its way' };

export function routes(deps: Deps): AnyRouteImpl[] {
  return [
    {
      method: 'POST',
      path: '/auth/signup',
      responses: { 201: signupAnswer },
      body: signupSchema,
      auth: 'none',
      handler: async (req: ApiRequest) => {
        const { invitation, ...credentials } = parse(signupSchema, req.body ?? {});
        const { sessionToken, ...out } = invitation
          ? await signupWithInvitation(deps, { ...credentials, invitation })
          : await signup(deps, credentials);
        return { ...created(out), cookies: [sessionCookie(sessionToken)] };
      },
    },
    {
      method: 'POST',
      path: '/auth/login',
      responses: { 200: userAnswer },
      body: loginSchema,
      auth: 'none',
      handler: async (req: ApiRequest) => {
        const { sessionToken, user } = await login(deps, parse(loginSchema, req.body ?? {}));
        return { ...ok({ user }), cookies: [sessionCookie(sessionToken)] };
      },
    },
    {
      method: 'GET',
      path: '/auth/logout',
      responses: { 200: successAnswer },
      auth: 'none',
      handler: async (req: ApiRequest) => {
        await logout(deps, cookieValue(req.event.cookies ?? [], SESSION_COOKIE));
        return { ...ok({ success: true }), cookies: [clearedSessionCookie()] };
      },
    },
    {
      method: 'GET',
      path: '/auth/oauth-config',
      responses: { 200: oauthConfigAnswer },
      auth: 'none',
      // Sesame has no OAuth sign-in: no provider is ever configured.
      handler: async () => ok({ providers: [] }),
    },
    {
      method: 'POST',
      path: '/auth/verify-email',
      responses: { 200: userAnswer },
      body: tokenSchema,
      auth: 'none',
      handler: async (req: ApiRequest) =>
        ok(await verifyEmail(deps, parse(tokenSchema, req.body ?? {}).token)),
    },
    {
      method: 'POST',
      path: '/auth/request-verification',
      responses: { 200: sentIfAnyAnswer },
      body: emailOnlySchema,
      auth: 'none',
      handler: async (req: ApiRequest) => {
        await requestVerification(deps, parse(emailOnlySchema, req.body ?? {}).email);
        return ok(SENT_IF_ANY);
      },
    },
    {
      method: 'POST',
      path: '/auth/request-password-reset',
      responses: { 200: sentIfAnyAnswer },
      body: emailOnlySchema,
      auth: 'none',
      handler: async (req: ApiRequest) => {
        await requestPasswordReset(deps, parse(emailOnlySchema, req.body ?? {}).email);
        return ok(SENT_IF_ANY);
      },
    },
    {
      method: 'POST',
      path: '/auth/reset-password',
      responses: { 200: successAnswer },
      body: resetPasswordSchema,
      auth: 'none',
      handler: async (req: ApiRequest) => {
        const input = parse(resetPasswordSchema, req.body ?? {});
        await resetPassword(deps, input.token, input.password);
        return ok({ success: true });
      },
    },
    {
      method: 'POST',
      path: '/auth/accept-invitation',
      responses: { 200: invitationAcceptedAnswer },
      body: tokenSchema,
      auth: 'session',
      handler: async (req: SessionRequest) =>
        ok(await acceptInvitation(deps, req.session.userId, parse(tokenSchema, req.body ?? {}).token)),
    },
    {
      method: 'GET',
      path: '/users/@me',
      responses: { 200: meAnswer },
      auth: 'session',
      handler: async (req: SessionRequest) => ok(await me(deps, req.session.userId)),
    },
    {
      method: 'GET',
      path: '/users/@me/projects',
      responses: { 200: projectListAnswer },
      auth: 'session',
      handler: async (req: SessionRequest) => ok(await myProjects(deps, req.session.userId)),
    },
    {
      method: 'POST',
      path: '/users/@me/projects',
      responses: { 201: projectCreatedAnswer },
      body: projectNameSchema,
      auth: 'session',
      handler: async (req: SessionRequest) =>
        created(
          await createUserProject(deps, req.session.userId, parse(projectNameSchema, req.body ?? {}).name),
        ),
    },
    sessionRoute({
      method: 'PATCH',
      path: '/users/@me/projects/{id}',
      responses: { 200: projectAnswer },
      body: projectNameSchema,
      params: projectIdParamSchema,
      handler: async (req) =>
        ok(
          await renameUserProject(
            deps,
            req.session.userId,
            req.params.id,
            parse(projectNameSchema, req.body ?? {}).name,
          ),
        ),
    }),
    sessionRoute({
      method: 'DELETE',
      path: '/users/@me/projects/{id}',
      responses: { 202: projectDeletionAnswer },
      params: projectIdParamSchema,
      handler: async (req) => json(202, await deleteUserProject(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'POST',
      path: '/users/@me/projects/{id}/reset',
      responses: { 202: projectResetAnswer },
      body: projectResetSchema,
      params: projectIdParamSchema,
      handler: async (req) =>
        json(
          202,
          await resetUserProject(
            deps,
            req.session.userId,
            req.params.id,
            parse(projectResetSchema, req.body ?? {}).confirm,
          ),
        ),
    }),
    sessionRoute({
      method: 'GET',
      path: '/users/@me/projects/{id}/reset',
      responses: { 200: projectResetAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await projectResetState(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'POST',
      path: '/users/@me/projects/{id}/regenerate-keys',
      responses: { 200: keysAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await regenerateKeys(deps, req.session.userId, req.params.id)),
    }),
    ...['/users/@me/projects/{id}/security', '/projects/{id}/security'].map((path) =>
      sessionRoute({
        method: 'GET',
        path,
        responses: { 200: securityAnswer },
        params: projectIdParamSchema,
        handler: async (req) => ok(await projectSecurity(deps, req.session.userId, req.params.id)),
      }),
    ),
    sessionRoute({
      method: 'GET',
      path: '/projects/{id}/setup-state',
      responses: { 200: setupStateAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await setupState(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'GET',
      path: '/projects/{id}/members',
      responses: { 200: memberListAnswer },
      params: projectIdParamSchema,
      handler: async (req) => ok(await listMembers(deps, req.session.userId, req.params.id)),
    }),
    sessionRoute({
      method: 'POST',
      path: '/projects/{id}/members',
      responses: { 201: memberAnswer, 202: invitedAnswer },
      body: addMemberSchema,
      params: projectIdParamSchema,
      handler: async (req) => {
        const out = await addMember(
          deps,
          req.session.userId,
          req.params.id,
          parse(addMemberSchema, req.body ?? {}),
        );
        return 'added' in out ? created(out.added) : json(202, out.invited);
      },
    }),
    sessionRoute({
      method: 'PATCH',
      path: '/projects/{id}/members/{userId}',
      responses: { 200: memberAnswer },
      body: memberRoleSchema,
      params: memberParamSchema,
      handler: async (req) =>
        ok(
          await changeRole(
            deps,
            req.session.userId,
            req.params.id,
            req.params.userId,
            parse(memberRoleSchema, req.body ?? {}).role,
          ),
        ),
    }),
    sessionRoute({
      method: 'DELETE',
      path: '/projects/{id}/members/{userId}',
      responses: { 200: successAnswer },
      params: memberParamSchema,
      handler: async (req) => {
        await removeMember(deps, req.session.userId, req.params.id, req.params.userId);
        return ok({ success: true });
      },
    }),
  ];
}

export const createHandler = (deps: Deps) => httpGroup(deps, 'accounts', routes);

export const handler = lambdaEntry(createHandler, {
  kind: 'http',
  name: 'accounts',
  // The AWS adapters of the ports its declared uses need (checked by awsDeps and the tests).
  wiring: { store: dynamoStore, queue: sqsQueue, mailer: sesMailer, linkSigningSecret: ssmLinkSigningSecret },
});
