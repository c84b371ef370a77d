/**
 * The types of the Sesame API, generated from docs/openapi.json by `npm run openapi`. Do not edit.
 */

export interface paths {
  "/activity": {
    get: operations["getActivity"];
  };
  "/activity/recent-count": {
    get: operations["getActivityRecentCount"];
  };
  "/activity/stats": {
    get: operations["getActivityStats"];
  };
  "/activity/types": {
    get: operations["getActivityTypes"];
  };
  "/activity/upcoming": {
    get: operations["getActivityUpcoming"];
  };
  "/analytics/campaign-stats": {
    get: operations["getAnalyticsCampaignStats"];
  };
  "/analytics/timeseries": {
    get: operations["getAnalyticsTimeseries"];
  };
  "/analytics/top-campaigns": {
    get: operations["getAnalyticsTopCampaigns"];
  };
  "/analytics/top-events": {
    get: operations["getAnalyticsTopEvents"];
  };
  "/audiences": {
    post: operations["postAudiences"];
  };
  "/audiences/{id}": {
    get: operations["getAudiencesId"];
  };
  "/auth/accept-invitation": {
    post: operations["postAuthAcceptInvitation"];
  };
  "/auth/login": {
    post: operations["postAuthLogin"];
  };
  "/auth/logout": {
    get: operations["getAuthLogout"];
  };
  "/auth/oauth-config": {
    get: operations["getAuthOauthConfig"];
  };
  "/auth/request-password-reset": {
    post: operations["postAuthRequestPasswordReset"];
  };
  "/auth/request-verification": {
    post: operations["postAuthRequestVerification"];
  };
  "/auth/reset-password": {
    post: operations["postAuthResetPassword"];
  };
  "/auth/signup": {
    post: operations["postAuthSignup"];
  };
  "/auth/verify-email": {
    post: operations["postAuthVerifyEmail"];
  };
  "/campaigns": {
    get: operations["getCampaigns"];
    post: operations["postCampaigns"];
  };
  "/campaigns/{id}": {
    get: operations["getCampaignsId"];
    put: operations["putCampaignsId"];
    delete: operations["deleteCampaignsId"];
  };
  "/campaigns/{id}/audience": {
    get: operations["getCampaignsIdAudience"];
    post: operations["postCampaignsIdAudience"];
  };
  "/campaigns/{id}/cancel": {
    post: operations["postCampaignsIdCancel"];
  };
  "/campaigns/{id}/duplicate": {
    post: operations["postCampaignsIdDuplicate"];
  };
  "/campaigns/{id}/send": {
    post: operations["postCampaignsIdSend"];
  };
  "/campaigns/{id}/stats": {
    get: operations["getCampaignsIdStats"];
  };
  "/campaigns/{id}/test": {
    post: operations["postCampaignsIdTest"];
  };
  "/config": {
    get: operations["getConfig"];
  };
  "/contacts": {
    get: operations["getContacts"];
    post: operations["postContacts"];
  };
  "/contacts/{id}": {
    get: operations["getContactsId"];
    delete: operations["deleteContactsId"];
    patch: operations["patchContactsId"];
  };
  "/contacts/bulk-delete": {
    post: operations["postContactsBulkDelete"];
  };
  "/contacts/bulk-subscribe": {
    post: operations["postContactsBulkSubscribe"];
  };
  "/contacts/bulk-unsubscribe": {
    post: operations["postContactsBulkUnsubscribe"];
  };
  "/contacts/bulk/{jobId}": {
    get: operations["getContactsBulkJobId"];
  };
  "/contacts/fields": {
    get: operations["getContactsFields"];
  };
  "/contacts/fields/{field}": {
    delete: operations["deleteContactsFieldsField"];
  };
  "/contacts/fields/{field}/usage": {
    get: operations["getContactsFieldsFieldUsage"];
  };
  "/contacts/fields/{field}/values": {
    get: operations["getContactsFieldsFieldValues"];
  };
  "/contacts/import": {
    post: operations["postContactsImport"];
  };
  "/contacts/import/{jobId}": {
    get: operations["getContactsImportJobId"];
  };
  "/contacts/lookup": {
    post: operations["postContactsLookup"];
  };
  "/docs": {
    get: operations["getDocs"];
  };
  "/docs/reference.js": {
    get: operations["getDocsReferenceJs"];
  };
  "/domains": {
    post: operations["postDomains"];
  };
  "/domains/{id}": {
    delete: operations["deleteDomainsId"];
  };
  "/domains/{id}/verify": {
    get: operations["getDomainsIdVerify"];
  };
  "/domains/project/{projectId}": {
    get: operations["getDomainsProjectProjectId"];
  };
  "/events": {
    get: operations["getEvents"];
  };
  "/events/{eventName}": {
    delete: operations["deleteEventsEventName"];
  };
  "/events/{eventName}/usage": {
    get: operations["getEventsEventNameUsage"];
  };
  "/events/contact/{contactId}": {
    get: operations["getEventsContactContactId"];
  };
  "/events/names": {
    get: operations["getEventsNames"];
  };
  "/events/stats": {
    get: operations["getEventsStats"];
  };
  "/events/track": {
    post: operations["postEventsTrack"];
  };
  "/openapi.json": {
    get: operations["getOpenapiJson"];
  };
  "/projects/{id}/members": {
    get: operations["getProjectsIdMembers"];
    post: operations["postProjectsIdMembers"];
  };
  "/projects/{id}/members/{userId}": {
    delete: operations["deleteProjectsIdMembersUserId"];
    patch: operations["patchProjectsIdMembersUserId"];
  };
  "/projects/{id}/security": {
    get: operations["getProjectsIdSecurity"];
  };
  "/projects/{id}/setup-state": {
    get: operations["getProjectsIdSetupState"];
  };
  "/segments": {
    get: operations["getSegments"];
    post: operations["postSegments"];
  };
  "/segments/{id}": {
    get: operations["getSegmentsId"];
    delete: operations["deleteSegmentsId"];
    patch: operations["patchSegmentsId"];
  };
  "/segments/{id}/compute": {
    post: operations["postSegmentsIdCompute"];
  };
  "/segments/{id}/contacts": {
    get: operations["getSegmentsIdContacts"];
  };
  "/segments/{id}/members": {
    post: operations["postSegmentsIdMembers"];
    delete: operations["deleteSegmentsIdMembers"];
  };
  "/segments/{id}/refresh": {
    post: operations["postSegmentsIdRefresh"];
  };
  "/templates": {
    get: operations["getTemplates"];
    post: operations["postTemplates"];
  };
  "/templates/{id}": {
    get: operations["getTemplatesId"];
    delete: operations["deleteTemplatesId"];
    patch: operations["patchTemplatesId"];
  };
  "/templates/{id}/duplicate": {
    post: operations["postTemplatesIdDuplicate"];
  };
  "/templates/{id}/usage": {
    get: operations["getTemplatesIdUsage"];
  };
  "/uploads/image": {
    post: operations["postUploadsImage"];
  };
  "/users/@me": {
    get: operations["getUsersMe"];
  };
  "/users/@me/projects": {
    get: operations["getUsersMeProjects"];
    post: operations["postUsersMeProjects"];
  };
  "/users/@me/projects/{id}": {
    delete: operations["deleteUsersMeProjectsId"];
    patch: operations["patchUsersMeProjectsId"];
  };
  "/users/@me/projects/{id}/billing-consumption": {
    get: operations["getUsersMeProjectsIdBillingConsumption"];
  };
  "/users/@me/projects/{id}/billing-invoices": {
    get: operations["getUsersMeProjectsIdBillingInvoices"];
  };
  "/users/@me/projects/{id}/billing-limits": {
    get: operations["getUsersMeProjectsIdBillingLimits"];
    put: operations["putUsersMeProjectsIdBillingLimits"];
  };
  "/users/@me/projects/{id}/billing-portal": {
    post: operations["postUsersMeProjectsIdBillingPortal"];
  };
  "/users/@me/projects/{id}/checkout": {
    post: operations["postUsersMeProjectsIdCheckout"];
  };
  "/users/@me/projects/{id}/regenerate-keys": {
    post: operations["postUsersMeProjectsIdRegenerateKeys"];
  };
  "/users/@me/projects/{id}/reset": {
    get: operations["getUsersMeProjectsIdReset"];
    post: operations["postUsersMeProjectsIdReset"];
  };
  "/users/@me/projects/{id}/security": {
    get: operations["getUsersMeProjectsIdSecurity"];
  };
  "/v1/send": {
    post: operations["postV1Send"];
  };
  "/v1/subscription/{token}": {
    get: operations["getV1SubscriptionToken"];
    post: operations["postV1SubscriptionToken"];
  };
  "/v1/track": {
    post: operations["postV1Track"];
  };
  "/v1/verify": {
    post: operations["postV1Verify"];
  };
  "/webhooks/incoming/stripe": {
    post: operations["postWebhooksIncomingStripe"];
  };
  "/webhooks/sns": {
    post: operations["postWebhooksSns"];
  };
  "/workflows": {
    get: operations["getWorkflows"];
    post: operations["postWorkflows"];
  };
  "/workflows/{id}": {
    get: operations["getWorkflowsId"];
    delete: operations["deleteWorkflowsId"];
    patch: operations["patchWorkflowsId"];
  };
  "/workflows/{id}/executions": {
    get: operations["getWorkflowsIdExecutions"];
    post: operations["postWorkflowsIdExecutions"];
  };
  "/workflows/{id}/executions/{executionId}": {
    get: operations["getWorkflowsIdExecutionsExecutionId"];
    delete: operations["deleteWorkflowsIdExecutionsExecutionId"];
  };
  "/workflows/{id}/executions/cancel-all": {
    post: operations["postWorkflowsIdExecutionsCancelAll"];
  };
  "/workflows/{id}/steps": {
    post: operations["postWorkflowsIdSteps"];
  };
  "/workflows/{id}/steps/{stepId}": {
    delete: operations["deleteWorkflowsIdStepsStepId"];
    patch: operations["patchWorkflowsIdStepsStepId"];
  };
  "/workflows/{id}/transitions": {
    post: operations["postWorkflowsIdTransitions"];
  };
  "/workflows/{id}/transitions/{transitionId}": {
    delete: operations["deleteWorkflowsIdTransitionsTransitionId"];
  };
  "/workflows/fields": {
    get: operations["getWorkflowsFields"];
  };
}

export interface operations {
  /** The activity feed (cursor pages; filter by type, contact, dates) */
  getActivity: {
    parameters: {
      query?: {
        limit?: string;
        cursor?: string;
        types?: string;
        contactId?: string;
        startDate?: string;
        endDate?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: ({
              id: string;
              type: string;
              timestamp: string;
              contactId: string;
              contactEmail: string | null;
              metadata: Record<string, unknown>;
            })[];
            cursor: string | null;
            hasMore: boolean;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** How much activity the last minutes saw */
  getActivityRecentCount: {
    parameters: {
      query?: {
        minutes?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            count: number;
            minutes: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Email and event totals over the last days */
  getActivityStats: {
    parameters: {
      query?: {
        days?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            totalEvents: number;
            totalEmailsSent: number;
            totalEmailsDelivered: number;
            /** Emails opened at least once (each email counts once however often it is opened) */
            totalEmailsOpened: number;
            /** Emails with at least one click (each email counts once) */
            totalEmailsClicked: number;
            totalEmailsBounced: number;
            totalEmailsComplained: number;
            totalWorkflowsStarted: number;
            /** Sesame's extension: every open, repeated opens of one email included */
            totalOpens: number;
            /** Sesame's extension: every click, repeated clicks of one email included */
            totalClicks: number;
            /** totalEmailsOpened as a percentage of totalEmailsSent (two decimals, 0 to 100) */
            openRate: number;
            /** totalEmailsClicked as a percentage of totalEmailsSent (two decimals, 0 to 100) */
            clickRate: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The activity types the project has */
  getActivityTypes: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            types: string[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Scheduled campaigns and waiting workflow executions coming up */
  getActivityUpcoming: {
    parameters: {
      query?: {
        limit?: string;
        daysAhead?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            activities: (({
              type: "campaign.scheduled";
              at: string;
              campaignId: string;
              executionId: null;
              name: string;
            }) | ({
              type: "workflow.waiting";
              at: string;
              workflowId: string;
              executionId: string;
              name: string;
            }))[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Every campaign's figures */
  getAnalyticsCampaignStats: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            campaigns: ({
              id: string;
              name: string;
              sentCount: number;
              openedCount: number;
              clickedCount: number;
              openRate: number;
              clickRate: number;
              status: string;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Email metrics per hour or day */
  getAnalyticsTimeseries: {
    parameters: {
      query?: {
        startDate?: string;
        endDate?: string;
        granularity?: "hour" | "day";
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            series: ({
              date: string;
              sent: number;
              delivered: number;
              opened: number;
              clicked: number;
              bounced: number;
              complained: number;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The campaigns with most sent, opened or clicked */
  getAnalyticsTopCampaigns: {
    parameters: {
      query?: {
        metric?: "sent" | "opened" | "clicked";
        limit?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            campaigns: ({
              id: string;
              name: string;
              sentCount: number;
              openedCount: number;
              clickedCount: number;
              openRate: number;
              clickRate: number;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The most frequent event names */
  getAnalyticsTopEvents: {
    parameters: {
      query?: {
        limit?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            events: ({
              name: string;
              count: number;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Count the contacts a condition tree reaches, for a live count in an editor (a job) */
  postAudiences: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        condition?: unknown;
        type?: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
      };
    } };
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["AudienceCount"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Poll a condition tree's audience count */
  getAudiencesId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["AudienceCount"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Join a project with an invitation token */
  postAuthAcceptInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        token: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            project: {
              id: string;
              name: string;
              role: "OWNER" | "ADMIN" | "MEMBER";
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Log in: sets the session cookie */
  postAuthLogin: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
        password: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            user: {
              id: string;
              email: string;
              emailVerified: boolean;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Log out: clears the session cookie */
  getAuthLogout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
          };
        };
      };
      default: components["responses"]["OtherError"];
    };
  };
  /** The OAuth providers offered (none) */
  getAuthOauthConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            providers: string[];
          };
        };
      };
      default: components["responses"]["OtherError"];
    };
  };
  /** Mail a password reset link */
  postAuthRequestPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            message: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Mail a new verification link */
  postAuthRequestVerification: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            message: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Set a new password with the mailed token */
  postAuthResetPassword: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        token: string;
        password: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create an account (and a first project, or join one by invitation) */
  postAuthSignup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
        password: string;
        invitation?: string;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": ({
            user: {
              id: string;
              email: string;
              emailVerified: boolean;
            };
            project: {
              id: string;
              name: string;
            };
            keys: {
              secretKey: string;
              publicKey: string;
            };
          }) | ({
            user: {
              id: string;
              email: string;
              emailVerified: boolean;
            };
            project: {
              id: string;
              name: string;
              role: "OWNER" | "ADMIN" | "MEMBER";
            };
          });
        };
      };
      400: components["responses"]["BadRequest"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Confirm an email address with the mailed token */
  postAuthVerifyEmail: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        token: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            user: {
              id: string;
              email: string;
              emailVerified: boolean;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** List campaigns (offset pages; filter by status, search) */
  getCampaigns: {
    parameters: {
      query?: {
        page?: string;
        pageSize?: string;
        status?: string;
        search?: string;
        sort?: string;
        dir?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Campaign"][];
            page: number;
            pageSize: number;
            total: number;
            totalPages: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create a draft campaign */
  postCampaigns: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
        description?: string | null;
        subject: string;
        body: string;
        from: string;
        fromName?: string | null;
        replyTo?: string | null;
        type?: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
        audienceType: "ALL" | "SEGMENT" | "FILTERED";
        segmentId?: string | null;
        audienceCondition?: unknown;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: components["schemas"]["Campaign"];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Read a campaign with its counters */
  getCampaignsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Campaign"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Replace a draft campaign's definition */
  putCampaignsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
        description?: string | null;
        subject: string;
        body: string;
        from: string;
        fromName?: string | null;
        replyTo?: string | null;
        type?: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
        audienceType: "ALL" | "SEGMENT" | "FILTERED";
        segmentId?: string | null;
        audienceCondition?: unknown;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Campaign"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a campaign that is not sending */
  deleteCampaignsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Poll a campaign's latest audience count */
  getCampaignsIdAudience: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["AudienceCount"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Count a draft or scheduled campaign's audience now: who it would mail, who is left out and why (a job) */
  postCampaignsIdAudience: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["AudienceCount"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Cancel a scheduled or sending campaign */
  postCampaignsIdCancel: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Campaign"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Copy a campaign as a new draft */
  postCampaignsIdDuplicate: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Campaign"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Send a campaign now, or schedule it */
  postCampaignsIdSend: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        scheduledFor?: string | number | null;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: components["schemas"]["Campaign"];
            message: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** A campaign's delivery and engagement figures */
  getCampaignsIdStats: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: {
              totalRecipients: number;
              sentCount: number;
              deliveredCount: number;
              openedCount: number;
              clickedCount: number;
              bouncedCount: number;
              /** Sesame's extension: recipients whose send was cut by a crash between their claim and the provider's answer, counted in no other counter until the campaign settles them (their SES Send event, or a resend when SES provably never accepted them); 0 once every recipient is settled */
              unknownCount: number;
              complainedCount: number;
              unsubscribedCount: number;
              openRate: number;
              clickRate: number;
              bounceRate: number;
              deliveryRate: number;
            };
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Send a test of a campaign to one address */
  postCampaignsIdTest: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            email: string;
            subject: string;
            messageId: string;
            contact: boolean;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** What this deployment offers */
  getConfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            oauthProviders: string[];
            signupEnabled: boolean;
            billing: {
              enabled: boolean;
            };
            storage: {
              enabled: boolean;
            };
            smtp: {
              enabled: boolean;
            };
            version: string;
          };
        };
      };
      default: components["responses"]["OtherError"];
    };
  };
  /** List contacts (cursor pages; filter by subscription, search by email) */
  getContacts: {
    parameters: {
      query?: {
        limit?: string;
        cursor?: string;
        search?: string;
        subscribed?: "true" | "false";
        sort?: string;
        dir?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Contact"][];
            cursor: string | null;
            hasMore: boolean;
            total: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create or update a contact by email */
  postContacts: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
        subscribed?: boolean;
        data?: unknown;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            email: string;
            subscribed: boolean;
            snoozedUntil: string | null;
            data: Record<string, unknown>;
            createdAt: string;
            updatedAt: string;
            _meta: {
              isNew: boolean;
              isUpdate: boolean;
            };
          };
        };
      };
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            email: string;
            subscribed: boolean;
            snoozedUntil: string | null;
            data: Record<string, unknown>;
            createdAt: string;
            updatedAt: string;
            _meta: {
              isNew: boolean;
              isUpdate: boolean;
            };
          };
        };
      };
      400: components["responses"]["FlatBadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Read a contact */
  getContactsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Contact"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a contact and its events */
  deleteContactsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Change a contact: email, subscription, snooze, data */
  patchContactsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email?: string;
        subscribed?: boolean;
        snoozedUntil?: string | null;
        data?: unknown;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Contact"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete up to 1,000 contacts (a job) */
  postContactsBulkDelete: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        contactIds: string[];
      };
    } };
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            status: "queued";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Subscribe up to 1,000 contacts (a job) */
  postContactsBulkSubscribe: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        contactIds: string[];
      };
    } };
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            status: "queued";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Unsubscribe up to 1,000 contacts (a job) */
  postContactsBulkUnsubscribe: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        contactIds: string[];
      };
    } };
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            status: "queued";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Poll a bulk job */
  getContactsBulkJobId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            type: "subscribe" | "unsubscribe" | "delete";
            status: "queued" | "processing" | "completed" | "failed";
            total: number;
            processed: number;
            succeeded: number;
            failed: number;
            errors: ({
              contactId: string;
              reason: string;
            })[];
            createdAt: string;
            completedAt: string | null;
            error?: {
              code: string;
              message: string;
            };
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The contact fields in use, with their types and coverage */
  getContactsFields: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            fields: ({
              field: string;
              type: "string" | "number" | "boolean" | "date" | "object" | "array";
              isCustom: boolean;
              coverage: number;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a custom field (its values are stripped in the background) */
  deleteContactsFieldsField: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        field: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            field: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The segments, campaigns and workflows that use a field */
  getContactsFieldsFieldUsage: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        field: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            field: string;
            segments: ({
              id: string;
              name: string;
            })[];
            campaigns: ({
              id: string;
              name: string;
            })[];
            workflows: ({
              id: string;
              name: string;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The distinct values of a field */
  getContactsFieldsFieldValues: {
    parameters: {
      query?: {
        limit?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        field: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            field: string;
            values: unknown[];
            count: number;
            limit: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Import contacts from a CSV file (an asynchronous job) */
  postContactsImport: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "multipart/form-data": {
        /** The CSV, at most 5 MB */
        file: string;
      };
    } };
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            status: "queued";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      413: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Poll a CSV import job */
  getContactsImportJobId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            status: "queued" | "processing" | "completed" | "failed";
            totalRows: number;
            processedRows: number;
            imported: number;
            updated: number;
            skipped: number;
            errors: ({
              row: number;
              email: string;
              reason: string;
            })[];
            createdAt: string;
            completedAt: string | null;
            error?: {
              code: string;
              message: string;
            };
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Find contacts by email, many at once */
  postContactsLookup: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        emails: string[];
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            found: ({
              id: string;
              email: string;
              subscribed: boolean;
            })[];
            notFound: string[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The API reference, as a page that renders this document */
  getDocs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content?: never;
      };
      default: components["responses"]["OtherError"];
    };
  };
  /** The reference page's script */
  getDocsReferenceJs: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content?: never;
      };
      default: components["responses"]["OtherError"];
    };
  };
  /** Add a sender domain (its DNS records, published in Route 53 when asked) */
  postDomains: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        domain: string;
        createRecords?: boolean;
        projectId?: string;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            projectId: string;
            domain: string;
            status: "PENDING" | "VERIFIED" | "FAILED";
            verified: boolean;
            records: ({
              type: "CNAME" | "MX" | "TXT";
              name: string;
              value: string;
              purpose: "DKIM" | "MAIL_FROM_MX" | "MAIL_FROM_SPF" | "DMARC";
              status: "PENDING" | "VERIFIED" | "FAILED";
              priority?: number;
            })[];
            lastCheckedAt: string | null;
            verifiedAt: string | null;
            createdAt: string;
            dnsSetup: {
              requested: boolean;
              hostedZone: ({
                id: string;
                name: string;
              }) | null;
              created: ({
                type: "CNAME" | "MX" | "TXT";
                name: string;
                purpose: "DKIM" | "MAIL_FROM_MX" | "MAIL_FROM_SPF" | "DMARC";
              })[];
              skipped: ({
                type: "CNAME" | "MX" | "TXT";
                name: string;
                purpose: "DKIM" | "MAIL_FROM_MX" | "MAIL_FROM_SPF" | "DMARC";
                reason: string;
              })[];
              message: string;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Remove a sender domain */
  deleteDomainsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Check a domain's DNS records now */
  getDomainsIdVerify: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Domain"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The project's sender domains */
  getDomainsProjectProjectId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        projectId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Domain"][];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** List the project's events, newest first */
  getEvents: {
    parameters: {
      query?: {
        limit?: string;
        cursor?: string;
        name?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Event"][];
            cursor: string;
            hasMore: boolean;
            total: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete every event of a name (a job) */
  deleteEventsEventName: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        eventName: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            jobId: string;
            name: string;
            status: "queued";
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The segments, campaigns and workflows that use an event name */
  getEventsEventNameUsage: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        eventName: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            event: string;
            segments: ({
              id: string;
              name: string;
            })[];
            campaigns: ({
              id: string;
              name: string;
            })[];
            workflows: ({
              id: string;
              name: string;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** A contact's events, newest first */
  getEventsContactContactId: {
    parameters: {
      query?: {
        limit?: string;
        cursor?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        contactId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Event"][];
            cursor: string;
            hasMore: boolean;
            total: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The event names seen, with counts */
  getEventsNames: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            names: ({
              name: string;
              count: number;
              firstSeenAt: string;
              lastSeenAt: string;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Event counts: total, by window, top names, per day */
  getEventsStats: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            total: number;
            uniqueNames: number;
            last24Hours: number;
            last7Days: number;
            last30Days: number;
            topEvents: ({
              name: string;
              count: number;
            })[];
            daily: ({
              date: string;
              count: number;
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Track an event for a contact */
  postEventsTrack: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
        event: string;
        subscribed?: boolean;
        data?: unknown;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: {
              contact: string;
              event: string;
              timestamp: string;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** This document */
  getOpenapiJson: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            openapi: "3.1.0";
            info: {
              title: string;
              version: string;
            } & Record<string, unknown>;
            paths: Record<string, Record<string, unknown>>;
            components: Record<string, unknown>;
          } & Record<string, unknown>;
        };
      };
      default: components["responses"]["OtherError"];
    };
  };
  /** A project's members */
  getProjectsIdMembers: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": ({
            userId: string;
            email: string;
            role: "OWNER" | "ADMIN" | "MEMBER";
            createdAt: string;
          })[];
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Add a member, or invite an address with no account */
  postProjectsIdMembers: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
        role: "OWNER" | "ADMIN" | "MEMBER";
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            userId: string;
            email: string;
            role: "OWNER" | "ADMIN" | "MEMBER";
            createdAt: string;
          };
        };
      };
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            invited: string;
            role: "OWNER" | "ADMIN" | "MEMBER";
            expiresAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Remove a member, or leave */
  deleteProjectsIdMembersUserId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        userId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Change a member's role */
  patchProjectsIdMembersUserId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        userId: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        role: "OWNER" | "ADMIN" | "MEMBER";
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            userId: string;
            email: string;
            role: "OWNER" | "ADMIN" | "MEMBER";
            createdAt: string;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** A project's key prefixes, members and last login */
  getProjectsIdSecurity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            keys: {
              /** The secret key's first 7 characters, nothing appended: `secretKey.startsWith(secretKeyPrefix)` */
              secretKeyPrefix: string;
              /** The public key's first 7 characters, nothing appended: `publicKey.startsWith(publicKeyPrefix)` */
              publicKeyPrefix: string;
              rotatedAt: string | null;
            };
            members: ({
              userId: string;
              email: string;
              role: "OWNER" | "ADMIN" | "MEMBER";
              createdAt: string;
            })[];
            lastLoginAt: string | null;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Which first steps a project has done */
  getProjectsIdSetupState: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            hasVerifiedDomain: boolean;
            hasTemplate: boolean;
            hasContact: boolean;
            hasSentEmail: boolean;
            hasTrackedEvent: boolean;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** List segments */
  getSegments: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Segment"][];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create a segment (dynamic, from a condition, or static) */
  postSegments: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
        description?: string | null;
        type?: "DYNAMIC" | "STATIC";
        trackMembership?: boolean;
        condition?: components["schemas"]["ConditionInput"];
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Segment"];
        };
      };
      400: components["responses"]["FlatBadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Read a segment */
  getSegmentsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Segment"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a segment no campaign or workflow uses */
  deleteSegmentsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Change a segment */
  patchSegmentsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name?: string;
        description?: string | null;
        trackMembership?: boolean;
        condition?: components["schemas"]["ConditionInput"];
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Segment"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Recompute a dynamic segment's members now */
  postSegmentsIdCompute: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            added: number;
            removed: number;
            memberCount: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** A segment's members (offset pages) */
  getSegmentsIdContacts: {
    parameters: {
      query?: {
        page?: string;
        pageSize?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Contact"][];
            page: number;
            pageSize: number;
            total: number;
            totalPages: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Add contacts to a static segment by email */
  postSegmentsIdMembers: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        emails: string[];
        createMissing?: boolean;
        subscribed?: boolean;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            added: number;
            created: number;
            notFound: string[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Remove contacts from a static segment by email */
  deleteSegmentsIdMembers: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        emails: string[];
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            removed: number;
            notFound: string[];
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Recount a segment's members */
  postSegmentsIdRefresh: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            memberCount: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** List templates (offset pages; filter by type, search) */
  getTemplates: {
    parameters: {
      query?: {
        page?: string;
        pageSize?: string;
        type?: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
        search?: string;
        sort?: string;
        dir?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Template"][];
            page: number;
            pageSize: number;
            total: number;
            totalPages: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create a template */
  postTemplates: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
        description?: string | null;
        subject: string;
        body: string;
        from: string;
        fromName?: string | null;
        replyTo?: string | null;
        type?: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Template"];
        };
      };
      400: components["responses"]["FlatBadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Read a template */
  getTemplatesId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Template"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a template no campaign or workflow uses */
  deleteTemplatesId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Change a template */
  patchTemplatesId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name?: string;
        description?: string | null;
        subject?: string;
        body?: string;
        from?: string;
        fromName?: string | null;
        replyTo?: string | null;
        type?: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Template"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Copy a template */
  postTemplatesIdDuplicate: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The campaigns and workflow steps that use a template */
  getTemplatesIdUsage: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            templateId: string;
            campaigns: ({
              id: string;
              name: string;
            })[];
            workflows: ({
              id: string;
              name: string;
              steps: ({
                id: string;
                type: string | null;
              })[];
            })[];
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Upload an image (multipart part `file`, at most 4 MB) to use in emails */
  postUploadsImage: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "multipart/form-data": unknown;
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            url: string;
            key: string;
            contentType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
            size: number;
          };
        };
      };
      400: components["responses"]["FlatBadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The signed-in user */
  getUsersMe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            email: string;
            emailVerified: boolean;
            createdAt: string;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The signed-in user's projects, with their role */
  getUsersMeProjects: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": ({
            id: string;
            name: string;
            disabled: boolean;
            createdAt: string;
            role: "OWNER" | "ADMIN" | "MEMBER";
          })[];
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create a project (its keys are shown once) */
  postUsersMeProjects: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            project: {
              id: string;
              name: string;
              disabled: boolean;
              createdAt: string;
              role: "OWNER" | "ADMIN" | "MEMBER";
            };
            keys: {
              secretKey: string;
              publicKey: string;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a project and all its data (owners) */
  deleteUsersMeProjectsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            status: "deleting";
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Rename a project */
  patchUsersMeProjectsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            name: string;
            disabled: boolean;
            createdAt: string;
            role: "OWNER" | "ADMIN" | "MEMBER";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** This month's sends by kind */
  getUsersMeProjectsIdBillingConsumption: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            periodStart: string;
            periodEnd: string;
            transactional: number;
            campaigns: number;
            workflows: number;
            total: number;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The project's Stripe invoices */
  getUsersMeProjectsIdBillingInvoices: {
    parameters: {
      query?: {
        limit?: number;
        startingAfter?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            invoices: ({
              id: string;
              number: string | null;
              status: string | null;
              currency: string;
              total: number;
              amountDue: number;
              amountPaid: number;
              createdAt: string;
              periodStart: string;
              periodEnd: string;
              hostedInvoiceUrl: string | null;
              invoicePdf: string | null;
            })[];
            hasMore: boolean;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** A project's monthly send caps */
  getUsersMeProjectsIdBillingLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            transactional: number | null;
            campaigns: number | null;
            workflows: number | null;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Set a project's monthly send caps */
  putUsersMeProjectsIdBillingLimits: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        transactional: number | null;
        campaigns: number | null;
        workflows: number | null;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            transactional: number | null;
            campaigns: number | null;
            workflows: number | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Open Stripe's billing portal */
  postUsersMeProjectsIdBillingPortal: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            url: string;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Start a Stripe checkout for the project */
  postUsersMeProjectsIdCheckout: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            url: string;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Replace a project's keys (shown once) */
  postUsersMeProjectsIdRegenerateKeys: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            secretKey: string;
            publicKey: string;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Poll a reset */
  getUsersMeProjectsIdReset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            status: "processing" | "completed" | "failed";
            requestedAt: string;
            completedAt: string | null;
            deleted: number;
            error: string | null;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a project's data, keeping the project (owners) */
  postUsersMeProjectsIdReset: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        confirm: string;
      };
    } };
    responses: {
      202: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            status: "processing" | "completed" | "failed";
            requestedAt: string;
            completedAt: string | null;
            deleted: number;
            error: string | null;
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** A project's key prefixes, members and last login */
  getUsersMeProjectsIdSecurity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            keys: {
              /** The secret key's first 7 characters, nothing appended: `secretKey.startsWith(secretKeyPrefix)` */
              secretKeyPrefix: string;
              /** The public key's first 7 characters, nothing appended: `publicKey.startsWith(publicKeyPrefix)` */
              publicKeyPrefix: string;
              rotatedAt: string | null;
            };
            members: ({
              userId: string;
              email: string;
              role: "OWNER" | "ADMIN" | "MEMBER";
              createdAt: string;
            })[];
            lastLoginAt: string | null;
          };
        };
      };
      401: components["responses"]["NoSession"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Send email now, from inline content or a template */
  postV1Send: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        to: (string | ({
          name?: string;
          email: string;
        })) | ((string | ({
          name?: string;
          email: string;
        }))[]);
        subject?: string;
        body?: string;
        template?: string;
        from?: string | ({
          name?: string;
          email: string;
        });
        name?: string;
        subscribed?: boolean;
        data?: unknown;
        headers?: Record<string, unknown>;
        reply?: string;
        attachments?: ({
          filename: string;
          content: string;
          contentType: string;
          contentId?: string;
          disposition?: "attachment" | "inline";
        })[];
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: {
              emails: ({
                contact: {
                  id: string;
                  email: string;
                };
                email: string;
                status: "sent" | "skipped" | "failed" | "unknown";
                reason?: string;
                error?: string;
              })[];
              timestamp: string;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The subscription page of a signed email link (HTML) */
  getV1SubscriptionToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        token: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content?: never;
      };
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Subscribe or unsubscribe from a signed email link (a form post, or a one-click List-Unsubscribe) */
  postV1SubscriptionToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        token: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/x-www-form-urlencoded": unknown;
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content?: never;
      };
      400: components["responses"]["BadRequest"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Track an event for a contact (public key, from a browser) */
  postV1Track: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
        event: string;
        subscribed?: boolean;
        data?: unknown;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: {
              contact: string;
              event: string;
              timestamp: string;
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Check an email address: syntax, domain, MX, disposable, typo */
  postV1Verify: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        email: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: {
              email: string;
              valid: boolean;
              isDisposable: boolean;
              isAlias: boolean;
              isTypo: boolean;
              isPlusAddressed: boolean;
              isPersonalEmail: boolean;
              domainExists: boolean;
              hasWebsite: boolean;
              hasMxRecords: boolean;
              suggestedEmail?: string;
              reasons: string[];
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Stripe events (the Stripe-Signature header authenticates them) */
  postWebhooksIncomingStripe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": unknown;
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            received: true;
            eventId: string;
            type: string;
            result: "applied" | "unchanged" | "duplicate" | "ignored";
          };
        };
      };
      400: components["responses"]["BadRequest"];
      default: components["responses"]["OtherError"];
    };
  };
  /** SNS deliveries of the SES event topic (SNS's signature authenticates them) */
  postWebhooksSns: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "text/plain": unknown;
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            success: true;
            data: {
              type: "SubscriptionConfirmation" | "Notification" | "UnsubscribeConfirmation";
              messageId: string;
              action: "enqueued" | "confirmed" | "ignored" | "none";
            };
          };
        };
      };
      400: components["responses"]["BadRequest"];
      default: components["responses"]["OtherError"];
    };
  };
  /** List workflows (offset pages) */
  getWorkflows: {
    parameters: {
      query?: {
        page?: string;
        pageSize?: string;
        search?: string;
        enabled?: "true" | "false";
        triggerType?: "EVENT" | "MANUAL";
        sort?: string;
        dir?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: ({
              id: string;
              name: string;
              description: string | null;
              enabled: boolean;
              triggerType: "EVENT" | "MANUAL";
              triggerConfig: {
                eventName: string | null;
              };
              allowReentry: boolean;
              entryStepId: string | null;
              createdAt: string;
              updatedAt: string;
              stepCount: number;
            })[];
            page: number;
            pageSize: number;
            total: number;
            totalPages: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Create a workflow */
  postWorkflows: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name: string;
        description?: string | null;
        eventName?: string | null;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Workflow"];
        };
      };
      400: components["responses"]["FlatBadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Read a workflow with its steps and transitions */
  getWorkflowsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Workflow"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a workflow with no running executions */
  deleteWorkflowsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Change a workflow: name, trigger, entry step, enable or disable */
  patchWorkflowsId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name?: string;
        description?: string | null;
        triggerType?: "EVENT" | "MANUAL";
        triggerConfig?: {
          eventName?: string | null;
        };
        enabled?: boolean;
        allowReentry?: boolean;
        entryStepId?: string | null;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Workflow"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** List a workflow's executions */
  getWorkflowsIdExecutions: {
    parameters: {
      query?: {
        status?: "RUNNING" | "WAITING" | "COMPLETED" | "EXITED" | "FAILED" | "CANCELLED";
        page?: string;
        pageSize?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            data: components["schemas"]["Execution"][];
            page: number;
            pageSize: number;
            total: number;
            totalPages: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Start a workflow for a contact */
  postWorkflowsIdExecutions: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        contactId: string;
        context?: Record<string, unknown>;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Execution"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Read an execution with its history */
  getWorkflowsIdExecutionsExecutionId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
        executionId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Execution"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Cancel an execution */
  deleteWorkflowsIdExecutionsExecutionId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
        executionId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Execution"];
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Cancel every running or waiting execution */
  postWorkflowsIdExecutionsCancelAll: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            cancelled: number;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Add a step */
  postWorkflowsIdSteps: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        type: "SEND_EMAIL" | "DELAY" | "WAIT_FOR_EVENT" | "CONDITION" | "WEBHOOK" | "UPDATE_CONTACT" | "EXIT";
        name?: string | null;
        config?: Record<string, unknown>;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Step"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Delete a step (optionally splicing its neighbours together) */
  deleteWorkflowsIdStepsStepId: {
    parameters: {
      query?: {
        splice?: "true" | "false";
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
        stepId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Change a step's name or config */
  patchWorkflowsIdStepsStepId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
        stepId: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        name?: string | null;
        config?: Record<string, unknown>;
        type?: string;
      };
    } };
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Step"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Join two steps */
  postWorkflowsIdTransitions: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: { content: {
      "application/json": {
        fromStepId: string;
        toStepId: string;
        branch?: "yes" | "no" | "event" | "timeout" | null;
      };
    } };
    responses: {
      201: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": components["schemas"]["Transition"];
        };
      };
      400: components["responses"]["BadRequest"];
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** Remove a transition */
  deleteWorkflowsIdTransitionsTransitionId: {
    parameters: {
      query?: never;
      header?: {
        "X-Project-Id"?: string;
      };
      path: {
        id: string;
        transitionId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            id: string;
            deleted: true;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
  /** The fields a workflow can use: contact, custom, and its event’s data */
  getWorkflowsFields: {
    parameters: {
      query?: {
        eventName?: string;
        workflowId?: string;
      };
      header?: {
        "X-Project-Id"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      200: {
        headers: { [name: string]: unknown };
        content: {
          "application/json": {
            contact: ({
              field: string;
              type: string;
            })[];
            custom: ({
              field: string;
              type: string;
            })[];
            event: ({
              name: string;
              sampled: number;
              fields: ({
                field: string;
                type: string;
              })[];
            }) | null;
          };
        };
      };
      401: components["responses"]["InvalidKey"];
      403: components["responses"]["Forbidden"];
      404: components["responses"]["NotFound"];
      422: components["responses"]["ValidationFailed"];
      429: components["responses"]["RateLimited"];
      default: components["responses"]["OtherError"];
    };
  };
}

export interface components {
  schemas: {
    Error: {
      success: false;
      error: {
        /** - `BAD_REQUEST`: The request is malformed (unparseable JSON, a missing header, an unusable value) - `VALIDATION_ERROR`: A field is invalid; `errors` lists each problem with its field path - `INVALID_API_KEY`: The key is missing, unknown, revoked, or of the wrong kind for the route - `UNAUTHORIZED`: No valid session cookie (user routes) - `INVALID_CREDENTIALS`: Wrong email or password - `TOO_MANY_LOGIN_ATTEMPTS`: Too many failed logins for this address; wait and retry - `FORBIDDEN`: The caller's role does not allow this - `CSRF_HEADER_MISSING`: A request signed in with the session cookie that changes something carries no X-Requested-With header - `PROJECT_DISABLED`: The project is disabled; its keys are refused - `SIGNUP_DISABLED`: Signup is closed on this deployment - `NOT_FOUND`: No such route, or no such thing in this project - `RATE_LIMIT_EXCEEDED`: Too many requests; retry after the Retry-After header - `INVALID_IDEMPOTENCY_KEY`: The Idempotency-Key header is not 1 to 255 printable ASCII characters - `IDEMPOTENCY_KEY_REUSED`: The Idempotency-Key was used with a different request - `INVALID_TOKEN`: The token (email verification, password reset, invitation) is unknown or expired - `INVALID_INVITATION`: The invitation is unknown, expired or used - `INVITATION_EMAIL_MISMATCH`: The invitation was sent to another address - `INVITATIONS_NOT_MAILED`: This deployment sends no account mail (no SYSTEM_FROM): an invitation would reach nobody - `EMAIL_ALREADY_REGISTERED`: A user with this email exists - `ALREADY_MEMBER`: The user is a member of the project already - `LAST_OWNER`: The project would be left without an owner - `MEMBERS_BUSY`: The project's members are being changed by another request; retry - `KEYS_BUSY`: The project's keys are being changed by another request; retry - `CONTACT_BUSY`: The contact is being changed by another request; retry - `CONTACT_EMAIL_TAKEN`: Another contact has this email - `TEMPLATE_BUSY`: The template is in use (a campaign or workflow names it) - `TEMPLATE_RENDER_ERROR`: The template could not be rendered with the data given - `MESSAGE_TOO_LARGE`: The built message is over the size limit - `EMAIL_SEND_FAILED`: The email provider refused every recipient - `EMAIL_SEND_THROTTLED`: The email provider is throttling or unavailable; retry after Retry-After - `ALREADY_SUBSCRIBED`: The contact is subscribed already - `DOMAIN_ALREADY_ADDED`: The domain is added to this project already - `DOMAIN_IN_USE`: The domain belongs to another project of this deployment - `SEGMENT_BUSY`: The segment is being changed by another request; retry - `SEGMENT_IN_USE`: A campaign or workflow uses the segment - `CAMPAIGN_BUSY`: The campaign is being changed by another request; retry - `CAMPAIGN_SENDING`: The campaign is sending; it cannot change now - `CAMPAIGN_NOT_EDITABLE`: Only a draft campaign can be edited - `CAMPAIGN_NOT_SENDABLE`: The campaign is not complete, or not in a state that can be sent - `CAMPAIGN_NOT_CANCELLABLE`: Only a scheduled or sending campaign can be cancelled - `CAMPAIGN_ALREADY_SENT`: The campaign's send has started: its audience is no longer counted (its stats count its recipients) - `WORKFLOW_BUSY`: The workflow is being changed by another request; retry - `WORKFLOW_HAS_ACTIVE_EXECUTIONS`: The workflow has running or waiting executions - `TRANSITION_EXISTS`: The steps are joined by a transition already - `WORKFLOW_REENTRY`: The contact is in this workflow already, or has been and the workflow allows no re-entry - `EXECUTION_BUSY`: The execution is being changed by another request; retry - `EXECUTION_ENDED`: The execution has ended - `BILLING_LIMIT_REACHED`: The project's monthly cap would be passed: nothing was sent - `SUBSCRIPTION_ACTIVE`: The project has an active Stripe subscription; cancel it first - `BILLING_DISABLED`: This deployment has no Stripe account configured - `NO_BILLING_ACCOUNT`: The project has no Stripe customer yet (no checkout was completed) - `BILLING_PROVIDER_ERROR`: Stripe answered with an error - `EVENT_IN_PROGRESS`: Another delivery of this Stripe event is being applied; Stripe retries - `INVALID_STRIPE_SIGNATURE`: The Stripe-Signature header does not verify - `INVALID_SNS_MESSAGE`: The SNS message is malformed or its signature does not verify - `SNS_TOPIC_NOT_ACCEPTED`: The SNS message comes from a topic this deployment does not accept - `FILE_TOO_LARGE`: The uploaded file is over the size limit - `INTERNAL_SERVER_ERROR`: An unexpected error (or, on a send, an unusable sender domain) */
        code: "BAD_REQUEST" | "VALIDATION_ERROR" | "INVALID_API_KEY" | "UNAUTHORIZED" | "INVALID_CREDENTIALS" | "TOO_MANY_LOGIN_ATTEMPTS" | "FORBIDDEN" | "CSRF_HEADER_MISSING" | "PROJECT_DISABLED" | "SIGNUP_DISABLED" | "NOT_FOUND" | "RATE_LIMIT_EXCEEDED" | "INVALID_IDEMPOTENCY_KEY" | "IDEMPOTENCY_KEY_REUSED" | "INVALID_TOKEN" | "INVALID_INVITATION" | "INVITATION_EMAIL_MISMATCH" | "INVITATIONS_NOT_MAILED" | "EMAIL_ALREADY_REGISTERED" | "ALREADY_MEMBER" | "LAST_OWNER" | "MEMBERS_BUSY" | "KEYS_BUSY" | "CONTACT_BUSY" | "CONTACT_EMAIL_TAKEN" | "TEMPLATE_BUSY" | "TEMPLATE_RENDER_ERROR" | "MESSAGE_TOO_LARGE" | "EMAIL_SEND_FAILED" | "EMAIL_SEND_THROTTLED" | "ALREADY_SUBSCRIBED" | "DOMAIN_ALREADY_ADDED" | "DOMAIN_IN_USE" | "SEGMENT_BUSY" | "SEGMENT_IN_USE" | "CAMPAIGN_BUSY" | "CAMPAIGN_SENDING" | "CAMPAIGN_NOT_EDITABLE" | "CAMPAIGN_NOT_SENDABLE" | "CAMPAIGN_NOT_CANCELLABLE" | "CAMPAIGN_ALREADY_SENT" | "WORKFLOW_BUSY" | "WORKFLOW_HAS_ACTIVE_EXECUTIONS" | "TRANSITION_EXISTS" | "WORKFLOW_REENTRY" | "EXECUTION_BUSY" | "EXECUTION_ENDED" | "BILLING_LIMIT_REACHED" | "SUBSCRIPTION_ACTIVE" | "BILLING_DISABLED" | "NO_BILLING_ACCOUNT" | "BILLING_PROVIDER_ERROR" | "EVENT_IN_PROGRESS" | "INVALID_STRIPE_SIGNATURE" | "INVALID_SNS_MESSAGE" | "SNS_TOPIC_NOT_ACCEPTED" | "FILE_TOO_LARGE" | "INTERNAL_SERVER_ERROR";
        message: string;
        statusCode: number;
        requestId: string;
        /** VALIDATION_ERROR: each problem, with its field path */
        errors?: ({
          field: string;
          message: string;
          code: string;
          received?: unknown;
        })[];
        details?: Record<string, never>;
        suggestion?: string;
      };
      timestamp: string;
    };
    FlatError: {
      error: string;
    };
    Contact: {
      id: string;
      email: string;
      subscribed: boolean;
      snoozedUntil: string | null;
      data: Record<string, unknown>;
      createdAt: string;
      updatedAt: string;
    };
    Template: {
      id: string;
      projectId: string;
      name: string;
      description: string | null;
      subject: string;
      body: string;
      from: string;
      fromName: string | null;
      replyTo: string | null;
      type: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
      createdAt: string;
      updatedAt: string;
    };
    Event: {
      id: string;
      name: string;
      contactId: string;
      email?: string;
      data: Record<string, unknown>;
      createdAt: string;
    };
    Domain: {
      id: string;
      projectId: string;
      domain: string;
      status: "PENDING" | "VERIFIED" | "FAILED";
      verified: boolean;
      records: ({
        type: "CNAME" | "MX" | "TXT";
        name: string;
        value: string;
        purpose: "DKIM" | "MAIL_FROM_MX" | "MAIL_FROM_SPF" | "DMARC";
        status: "PENDING" | "VERIFIED" | "FAILED";
        priority?: number;
      })[];
      lastCheckedAt: string | null;
      verifiedAt: string | null;
      createdAt: string;
    };
    Segment: {
      id: string;
      projectId: string;
      name: string;
      slug: string;
      description: string | null;
      type: "DYNAMIC" | "STATIC";
      condition: components["schemas"]["Condition"] | null;
      trackMembership: boolean;
      memberCount: number;
      builtAt: string | null;
      lastComputedAt: string | null;
      createdAt: string;
      updatedAt: string;
    };
    Condition: {
      logic: "AND" | "OR";
      groups: ({
        filters: ({
          field: string;
          operator: "equals" | "notEquals" | "contains" | "notContains" | "greaterThan" | "greaterThanOrEqual" | "lessThan" | "lessThanOrEqual" | "exists" | "notExists" | "within" | "olderThan" | "triggered" | "notTriggered" | "triggeredWithin" | "triggeredOlderThan" | "notTriggeredWithin" | "memberOfSegment" | "notMemberOfSegment" | "gt" | "gte" | "lt" | "lte";
          value?: unknown;
          unit?: unknown;
        })[];
        conditions?: components["schemas"]["Condition"];
      })[];
    };
    ConditionInput: {
      logic: "AND" | "OR";
      groups: ({
        filters: ({
          field: string;
          operator: "equals" | "notEquals" | "contains" | "notContains" | "greaterThan" | "greaterThanOrEqual" | "lessThan" | "lessThanOrEqual" | "exists" | "notExists" | "within" | "olderThan" | "triggered" | "notTriggered" | "triggeredWithin" | "triggeredOlderThan" | "notTriggeredWithin" | "memberOfSegment" | "notMemberOfSegment" | "gt" | "gte" | "lt" | "lte";
          value?: unknown;
          unit?: unknown;
        })[];
        conditions?: components["schemas"]["ConditionInput"];
      })[];
    };
    Campaign: {
      id: string;
      projectId: string;
      name: string;
      description: string | null;
      subject: string;
      body: string;
      from: string;
      fromName: string | null;
      replyTo: string | null;
      type: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
      status: "DRAFT" | "SCHEDULED" | "SENDING" | "SENT" | "CANCELLED";
      audienceType: "ALL" | "SEGMENT" | "FILTERED";
      audienceCondition: components["schemas"]["Condition"] | null;
      segmentId: string | null;
      scheduledFor: string | null;
      totalRecipients: number;
      sentCount: number;
      deliveredCount: number;
      openedCount: number;
      clickedCount: number;
      bouncedCount: number;
      sentAt: string | null;
      createdAt: string;
      updatedAt: string;
    };
    AudienceCount: {
      id: string;
      campaignId: string | null;
      status: "queued" | "processing" | "completed" | "failed";
      type: "TRANSACTIONAL" | "MARKETING" | "HEADLESS";
      audienceType: "ALL" | "SEGMENT" | "FILTERED";
      audienceCondition: components["schemas"]["Condition"] | null;
      segmentId: string | null;
      /** Contacts a send at `computedAt` would mail (so far, until the status is completed) */
      count: number;
      /** Contacts of the audience before anyone is left out: `count` plus every `excluded` */
      matched: number;
      excluded: {
        /** Left out as unsubscribed (MARKETING and HEADLESS content; 0 for TRANSACTIONAL) */
        unsubscribed: number;
        /** Left out as on the project's suppression list (any content type) */
        suppressed: number;
        /** Left out as snoozed past `computedAt` (MARKETING and HEADLESS content) */
        snoozed: number;
      };
      /** The first recipients (at most 10), in the order the send would reach them */
      sample: ({
        id: string;
        email: string;
      })[];
      /** The instant the audience is judged at: contacts created later are not in it; relative times and snoozes are judged at it */
      computedAt: string;
      createdAt: string;
      completedAt: string | null;
      error?: {
        code: string;
        message: string;
      };
    };
    Workflow: {
      id: string;
      name: string;
      description: string | null;
      enabled: boolean;
      triggerType: "EVENT" | "MANUAL";
      triggerConfig: {
        eventName: string | null;
      };
      allowReentry: boolean;
      entryStepId: string | null;
      createdAt: string;
      updatedAt: string;
      steps: components["schemas"]["Step"][];
      transitions: components["schemas"]["Transition"][];
      webhookSecret: string;
    };
    Step: {
      id: string;
      type: "SEND_EMAIL" | "DELAY" | "WAIT_FOR_EVENT" | "CONDITION" | "WEBHOOK" | "UPDATE_CONTACT" | "EXIT";
      name: string | null;
      config: Record<string, unknown>;
    };
    Transition: {
      id: string;
      fromStepId: string;
      toStepId: string;
      branch: "yes" | "no" | "event" | "timeout" | null;
    };
    Execution: {
      id: string;
      workflowId: string;
      contactId: string;
      status: "RUNNING" | "WAITING" | "COMPLETED" | "EXITED" | "FAILED" | "CANCELLED";
      currentStepId: string | null;
      resumesAt: string | null;
      context: Record<string, unknown>;
      history: ({
        stepId: string;
        type: string;
        result: string;
        at: string;
      })[];
      startedAt: string;
      completedAt: string | null;
      error: string | null;
    };
  };
  responses: {
    BadRequest: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    FlatBadRequest: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["FlatError"] | components["schemas"]["Error"];
      };
    };
    NoSession: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    InvalidKey: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    RateLimited: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    Forbidden: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    NotFound: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    ValidationFailed: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
    OtherError: {
      headers: { [name: string]: unknown };
      content: {
        "application/json": components["schemas"]["Error"];
      };
    };
  };
}
