/**
 * Every text Sesame itself writes into or around a message, in every language it ships: the
 * marketing footer, and the subscription pages (unsubscribe, subscribe, manage), their
 * confirmations and errors, which also answer one-click unsubscribes.
 *
 * For translators: each language is one object below with the same keys as `en`. `{email}` stands
 * for the contact's address and `{until}` for a date: keep them, braces included. A new language
 * is a new entry under its BCP 47 tag (`pt-BR` beside `pt`, say): contacts whose `data.locale` is
 * that tag, or starts with it, get it (see locale.ts). The compiler refuses a language that lacks
 * a key.
 */

export interface Messages {
  /** The MARKETING footer's sentence, and its link's text. */
  readonly footer: string;
  readonly footerLink: string;
  /** The subscription page's state line; `{email}` is the address. */
  readonly stateSubscribed: string;
  readonly stateUnsubscribed: string;
  /** Page titles. */
  readonly titleSubscribed: string;
  readonly titleUnsubscribed: string;
  readonly titleJustUnsubscribed: string;
  readonly titleSubscribedAgain: string;
  readonly titleUnsubscribe: string;
  readonly titleSubscribe: string;
  readonly titleManage: string;
  readonly titleNotFound: string;
  readonly titleInvalid: string;
  /** After an unsubscribe, above the button that undoes it. */
  readonly noteChangedMind: string;
  /** Buttons. */
  readonly buttonUnsubscribe: string;
  readonly buttonSubscribe: string;
  readonly buttonSubscribeAgain: string;
  /** Error pages. */
  readonly linkMalformed: string;
  readonly linkInvalid: string;
  readonly subscriptionGone: string;
  readonly actionMissing: string;
  readonly linkCannotSubscribe: string;
  readonly linkCannotUnsubscribe: string;
  /** The manage page's snooze: its button, the paused state (`{until}` is a date), resuming. */
  readonly buttonSnooze: string;
  readonly buttonResume: string;
  readonly stateSnoozed: string;
  readonly titleSnoozed: string;
  readonly titleResumed: string;
}

const en: Messages = {
  footer: 'You received this email because you subscribed.',
  footerLink: 'Unsubscribe',
  stateSubscribed: '{email} is subscribed to these emails.',
  stateUnsubscribed: '{email} is unsubscribed and will not receive these emails.',
  titleSubscribed: 'You are subscribed',
  titleUnsubscribed: 'You are unsubscribed',
  titleJustUnsubscribed: 'You have been unsubscribed',
  titleSubscribedAgain: 'You are subscribed again',
  titleUnsubscribe: 'Unsubscribe',
  titleSubscribe: 'Subscribe',
  titleManage: 'Manage your subscription',
  titleNotFound: 'Link not found',
  titleInvalid: 'Invalid request',
  noteChangedMind: 'Changed your mind? You can subscribe again below.',
  buttonUnsubscribe: 'Unsubscribe',
  buttonSubscribe: 'Subscribe',
  buttonSubscribeAgain: 'Subscribe again',
  linkMalformed: 'This link is malformed.',
  linkInvalid: 'This link is not valid. Use the link from your most recent email.',
  subscriptionGone: 'This subscription no longer exists.',
  actionMissing: 'Send action=subscribe or action=unsubscribe.',
  linkCannotSubscribe: 'This link cannot subscribe.',
  linkCannotUnsubscribe: 'This link cannot unsubscribe.',
  buttonSnooze: 'Pause emails for 30 days',
  buttonResume: 'Resume emails',
  stateSnoozed: 'Emails to {email} are paused until {until}.',
  titleSnoozed: 'Emails paused',
  titleResumed: 'Emails resumed',
};

const fr: Messages = {
  footer: 'Vous recevez cet e-mail car vous vous êtes abonné(e).',
  footerLink: 'Se désabonner',
  stateSubscribed: '{email} est abonné(e) à ces e-mails.',
  stateUnsubscribed: '{email} est désabonné(e) et ne recevra plus ces e-mails.',
  titleSubscribed: 'Vous êtes abonné(e)',
  titleUnsubscribed: 'Vous êtes désabonné(e)',
  titleJustUnsubscribed: 'Vous avez été désabonné(e)',
  titleSubscribedAgain: 'Vous êtes de nouveau abonné(e)',
  titleUnsubscribe: 'Se désabonner',
  titleSubscribe: "S'abonner",
  titleManage: 'Gérer votre abonnement',
  titleNotFound: 'Lien introuvable',
  titleInvalid: 'Requête invalide',
  noteChangedMind: "Vous avez changé d'avis ? Vous pouvez vous réabonner ci-dessous.",
  buttonUnsubscribe: 'Se désabonner',
  buttonSubscribe: "S'abonner",
  buttonSubscribeAgain: 'Se réabonner',
  linkMalformed: 'Ce lien est mal formé.',
  linkInvalid: "Ce lien n'est pas valide. Utilisez le lien de votre e-mail le plus récent.",
  subscriptionGone: "Cet abonnement n'existe plus.",
  actionMissing: 'Envoyez action=subscribe ou action=unsubscribe.',
  linkCannotSubscribe: "Ce lien ne permet pas de s'abonner.",
  linkCannotUnsubscribe: 'Ce lien ne permet pas de se désabonner.',
  buttonSnooze: 'Suspendre les e-mails pendant 30 jours',
  buttonResume: 'Reprendre les e-mails',
  stateSnoozed: "Les e-mails à {email} sont suspendus jusqu'au {until}.",
  titleSnoozed: 'E-mails suspendus',
  titleResumed: 'E-mails repris',
};

const de: Messages = {
  footer: 'Sie erhalten diese E-Mail, weil Sie sich angemeldet haben.',
  footerLink: 'Abmelden',
  stateSubscribed: '{email} ist für diese E-Mails angemeldet.',
  stateUnsubscribed: '{email} ist abgemeldet und erhält diese E-Mails nicht mehr.',
  titleSubscribed: 'Sie sind angemeldet',
  titleUnsubscribed: 'Sie sind abgemeldet',
  titleJustUnsubscribed: 'Sie wurden abgemeldet',
  titleSubscribedAgain: 'Sie sind wieder angemeldet',
  titleUnsubscribe: 'Abmelden',
  titleSubscribe: 'Anmelden',
  titleManage: 'Abonnement verwalten',
  titleNotFound: 'Link nicht gefunden',
  titleInvalid: 'Ungültige Anfrage',
  noteChangedMind: 'Haben Sie es sich anders überlegt? Unten können Sie sich wieder anmelden.',
  buttonUnsubscribe: 'Abmelden',
  buttonSubscribe: 'Anmelden',
  buttonSubscribeAgain: 'Wieder anmelden',
  linkMalformed: 'Dieser Link ist fehlerhaft.',
  linkInvalid: 'Dieser Link ist ungültig. Verwenden Sie den Link aus Ihrer neuesten E-Mail.',
  subscriptionGone: 'Dieses Abonnement besteht nicht mehr.',
  actionMissing: 'Senden Sie action=subscribe oder action=unsubscribe.',
  linkCannotSubscribe: 'Mit diesem Link ist keine Anmeldung möglich.',
  linkCannotUnsubscribe: 'Mit diesem Link ist keine Abmeldung möglich.',
  buttonSnooze: 'E-Mails für 30 Tage pausieren',
  buttonResume: 'E-Mails fortsetzen',
  stateSnoozed: 'E-Mails an {email} sind bis zum {until} pausiert.',
  titleSnoozed: 'E-Mails pausiert',
  titleResumed: 'E-Mails fortgesetzt',
};

const es: Messages = {
  footer: 'Recibes este correo porque te suscribiste.',
  footerLink: 'Cancelar suscripción',
  stateSubscribed: '{email} está suscrito a estos correos.',
  stateUnsubscribed: '{email} ha cancelado la suscripción y no recibirá estos correos.',
  titleSubscribed: 'Estás suscrito',
  titleUnsubscribed: 'No estás suscrito',
  titleJustUnsubscribed: 'Se ha cancelado tu suscripción',
  titleSubscribedAgain: 'Vuelves a estar suscrito',
  titleUnsubscribe: 'Cancelar suscripción',
  titleSubscribe: 'Suscribirse',
  titleManage: 'Gestionar tu suscripción',
  titleNotFound: 'Enlace no encontrado',
  titleInvalid: 'Solicitud no válida',
  noteChangedMind: '¿Has cambiado de opinión? Puedes volver a suscribirte abajo.',
  buttonUnsubscribe: 'Cancelar suscripción',
  buttonSubscribe: 'Suscribirme',
  buttonSubscribeAgain: 'Volver a suscribirme',
  linkMalformed: 'Este enlace está mal formado.',
  linkInvalid: 'Este enlace no es válido. Usa el enlace de tu correo más reciente.',
  subscriptionGone: 'Esta suscripción ya no existe.',
  actionMissing: 'Envía action=subscribe o action=unsubscribe.',
  linkCannotSubscribe: 'Este enlace no permite suscribirse.',
  linkCannotUnsubscribe: 'Este enlace no permite cancelar la suscripción.',
  buttonSnooze: 'Pausar los correos durante 30 días',
  buttonResume: 'Reanudar los correos',
  stateSnoozed: 'Los correos a {email} están en pausa hasta el {until}.',
  titleSnoozed: 'Correos en pausa',
  titleResumed: 'Correos reanudados',
};

const pt: Messages = {
  footer: 'Você recebeu este e-mail porque se inscreveu.',
  footerLink: 'Cancelar inscrição',
  stateSubscribed: '{email} está inscrito para receber estes e-mails.',
  stateUnsubscribed: '{email} cancelou a inscrição e não receberá estes e-mails.',
  titleSubscribed: 'Você está inscrito',
  titleUnsubscribed: 'Você não está inscrito',
  titleJustUnsubscribed: 'Sua inscrição foi cancelada',
  titleSubscribedAgain: 'Você está inscrito novamente',
  titleUnsubscribe: 'Cancelar inscrição',
  titleSubscribe: 'Inscrever-se',
  titleManage: 'Gerenciar sua inscrição',
  titleNotFound: 'Link não encontrado',
  titleInvalid: 'Solicitação inválida',
  noteChangedMind: 'Mudou de ideia? Você pode se inscrever novamente abaixo.',
  buttonUnsubscribe: 'Cancelar inscrição',
  buttonSubscribe: 'Inscrever-me',
  buttonSubscribeAgain: 'Inscrever-me novamente',
  linkMalformed: 'Este link está malformado.',
  linkInvalid: 'Este link não é válido. Use o link do seu e-mail mais recente.',
  subscriptionGone: 'Esta inscrição não existe mais.',
  actionMissing: 'Envie action=subscribe ou action=unsubscribe.',
  linkCannotSubscribe: 'Este link não permite se inscrever.',
  linkCannotUnsubscribe: 'Este link não permite cancelar a inscrição.',
  buttonSnooze: 'Pausar os e-mails por 30 dias',
  buttonResume: 'Retomar os e-mails',
  stateSnoozed: 'Os e-mails para {email} estão pausados até {until}.',
  titleSnoozed: 'E-mails pausados',
  titleResumed: 'E-mails retomados',
};

const it: Messages = {
  footer: 'Ricevi questa email perché ti sei iscritto.',
  footerLink: "Annulla l'iscrizione",
  stateSubscribed: '{email} è iscritto a queste email.',
  stateUnsubscribed: '{email} non è più iscritto e non riceverà queste email.',
  titleSubscribed: 'Sei iscritto',
  titleUnsubscribed: 'Non sei iscritto',
  titleJustUnsubscribed: 'La tua iscrizione è stata annullata',
  titleSubscribedAgain: 'Sei di nuovo iscritto',
  titleUnsubscribe: "Annulla l'iscrizione",
  titleSubscribe: 'Iscriviti',
  titleManage: 'Gestisci la tua iscrizione',
  titleNotFound: 'Link non trovato',
  titleInvalid: 'Richiesta non valida',
  noteChangedMind: 'Hai cambiato idea? Puoi iscriverti di nuovo qui sotto.',
  buttonUnsubscribe: "Annulla l'iscrizione",
  buttonSubscribe: 'Iscriviti',
  buttonSubscribeAgain: 'Iscriviti di nuovo',
  linkMalformed: 'Questo link non è formato correttamente.',
  linkInvalid: 'Questo link non è valido. Usa il link della tua email più recente.',
  subscriptionGone: 'Questa iscrizione non esiste più.',
  actionMissing: 'Invia action=subscribe o action=unsubscribe.',
  linkCannotSubscribe: 'Questo link non consente di iscriversi.',
  linkCannotUnsubscribe: "Questo link non consente di annullare l'iscrizione.",
  buttonSnooze: 'Sospendi le email per 30 giorni',
  buttonResume: 'Riprendi le email',
  stateSnoozed: 'Le email a {email} sono sospese fino al {until}.',
  titleSnoozed: 'Email sospese',
  titleResumed: 'Email riprese',
};

const nl: Messages = {
  footer: 'Je ontvangt deze e-mail omdat je je hebt aangemeld.',
  footerLink: 'Afmelden',
  stateSubscribed: '{email} is aangemeld voor deze e-mails.',
  stateUnsubscribed: '{email} is afgemeld en ontvangt deze e-mails niet meer.',
  titleSubscribed: 'Je bent aangemeld',
  titleUnsubscribed: 'Je bent afgemeld',
  titleJustUnsubscribed: 'Je afmelding is verwerkt',
  titleSubscribedAgain: 'Je bent weer aangemeld',
  titleUnsubscribe: 'Afmelden',
  titleSubscribe: 'Aanmelden',
  titleManage: 'Je abonnement beheren',
  titleNotFound: 'Link niet gevonden',
  titleInvalid: 'Ongeldig verzoek',
  noteChangedMind: 'Van gedachten veranderd? Je kunt je hieronder opnieuw aanmelden.',
  buttonUnsubscribe: 'Afmelden',
  buttonSubscribe: 'Aanmelden',
  buttonSubscribeAgain: 'Opnieuw aanmelden',
  linkMalformed: 'Deze link is onjuist opgebouwd.',
  linkInvalid: 'Deze link is niet geldig. Gebruik de link uit je meest recente e-mail.',
  subscriptionGone: 'Dit abonnement bestaat niet meer.',
  actionMissing: 'Stuur action=subscribe of action=unsubscribe.',
  linkCannotSubscribe: 'Met deze link kun je je niet aanmelden.',
  linkCannotUnsubscribe: 'Met deze link kun je je niet afmelden.',
  buttonSnooze: 'E-mails 30 dagen pauzeren',
  buttonResume: 'E-mails hervatten',
  stateSnoozed: 'E-mails aan {email} zijn gepauzeerd tot {until}.',
  titleSnoozed: 'E-mails gepauzeerd',
  titleResumed: 'E-mails hervat',
};

/** The shipped languages by BCP 47 tag; `en` is the fallback of every other. */
export const CATALOGUE: Readonly<Record<string, Messages>> = { en, fr, de, es, pt, it, nl };

export const DEFAULT_LANGUAGE = 'en';
