import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '@nats-io/transport-node';
import { TroupeError, describeError } from '../../errors.js';
import type { NatsTransportSettings } from './natsTransportOptions.js';

/** A TLS file's PEM text, or a refusal naming the option and the file. */
function pem(option: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new TroupeError('invalid_input', `nats: tls.${option}: cannot read ${file}: ${describeError(error)}`, { cause: error, context: { file } });
  }
}

/** `server` without a user and password (or token) written into its URL. */
function withoutLogin(server: string): string {
  return server.replace(/\/\/[^/@]*@/, '//');
}

/** Credentials written into a server's URL (`nats://token@host`, `nats://user:password@host`), which the NATS client would not send. */
type UrlLogin = { readonly token: string } | { readonly user: string; readonly password: string };

/** The servers without any credentials in their URLs, and the one login those URLs gave (all must agree). */
function splitLogins(servers: string | readonly string[]): { servers: string[]; login: UrlLogin | undefined } {
  const logins = new Set<string>();
  const bare = [servers].flat().map((server) => {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      return server; // `host:port` without a scheme: the client parses it, and it carries no login.
    }
    if (url.username === '') return server;
    const user = decodeURIComponent(url.username);
    logins.add(JSON.stringify(url.password === '' ? { token: user } : { user, password: decodeURIComponent(url.password) }));
    return withoutLogin(server);
  });
  if (logins.size > 1) throw new TroupeError('invalid_input', 'nats: servers: the URLs carry different credentials; give one login for all');
  const [login] = logins;
  return { servers: bare, login: login === undefined ? undefined : (JSON.parse(login) as UrlLogin) };
}

/** The login: the options' token or user and password, else one written into the servers' URLs (not both). */
function loginOf(settings: NatsTransportSettings, fromUrl: UrlLogin | undefined): Pick<ConnectionOptions, 'token' | 'user' | 'pass'> {
  const given = settings.token !== undefined || settings.user !== undefined;
  if (given && fromUrl !== undefined)
    throw new TroupeError('invalid_input', "nats: credentials both in the servers' URLs and in token/user/password; give them once");
  if (settings.token !== undefined) return { token: settings.token };
  if (settings.user !== undefined) return { user: settings.user, pass: settings.password };
  if (fromUrl === undefined) return {};
  return 'token' in fromUrl ? { token: fromUrl.token } : { user: fromUrl.user, pass: fromUrl.password };
}

/** The NATS client's options for `settings`: the servers, reconnection, and how the connection proves who it is. */
export function connectOptionsOf(settings: NatsTransportSettings): ConnectionOptions {
  const { tls } = settings;
  const { servers, login } = splitLogins(settings.servers);
  return {
    servers,
    // A Task sent here is handed to this bus directly (see NatsTransport), never echoed back.
    noEcho: true,
    timeout: settings.connectTimeoutMs,
    maxReconnectAttempts: -1,
    reconnectTimeWait: settings.reconnectWaitMs,
    ...(settings.name === undefined ? {} : { name: settings.name }),
    ...loginOf(settings, login),
    ...(tls === undefined
      ? {}
      : {
          tls: {
            ...(tls.caFile === undefined ? {} : { ca: pem('caFile', tls.caFile) }),
            ...(tls.certFile === undefined ? {} : { cert: pem('certFile', tls.certFile) }),
            ...(tls.keyFile === undefined ? {} : { key: pem('keyFile', tls.keyFile) }),
          },
        }),
  };
}

/** The servers as the user gave them, without any user and password written into a URL. */
function serversShown(servers: string | readonly string[]): string {
  return [servers].flat().map(withoutLogin).join(', ');
}

/** Why the first connection failed, as a TroupeError: refused credentials, a TLS failure, or no server there. */
export function connectFailure(settings: NatsTransportSettings, error: unknown): TroupeError {
  const where = serversShown(settings.servers);
  const why = describeError(error);
  const context = { servers: where };
  if (/authori[sz]ation|authentication/i.test(why)) {
    return new TroupeError('unauthorized', `NATS at ${where} refused this connection's credentials (${why}): check its token, or user and password`, {
      cause: error,
      context,
    });
  }
  if (settings.tls !== undefined || /tls|certificate|ssl/i.test(why)) {
    return new TroupeError('transport_unavailable', `cannot connect to NATS at ${where} over TLS: ${why}`, { cause: error, context });
  }
  return new TroupeError('transport_unavailable', `cannot connect to NATS at ${where}: ${why}; is nats-server running there?`, { cause: error, context });
}
