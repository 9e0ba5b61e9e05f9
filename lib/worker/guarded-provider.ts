import type { ProviderDeclaration } from '../job-definition.js';
import type { LeaseGuard } from './lease-guard.js';

/**
 * The attempt's provider client with its declared `effects` methods behind the lease guard: once the attempt
 * is in lease doubt (or has lost its fence) an effect call returns a promise rejected with the refusal
 * (LeaseInDoubtError) before the provider is called, like ctx.step. Other members (lookups, fields) pass through unchanged. Methods run on the client itself, so a
 * client with private fields works. A client that is not an object is returned as built.
 */
function guardedProvider<Client>(declaration: ProviderDeclaration<Client>, client: Client, guard: LeaseGuard): Client {
  if (client === null || (typeof client !== 'object' && typeof client !== 'function')) return client;
  const target = client as object;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      let method = wrapped.get(property);
      if (method === undefined) {
        const effect = typeof property === 'string' && declaration.effects.includes(property);
        const call = value as (...parameters: unknown[]) => unknown;
        method = effect
          ? (...parameters: unknown[]) => {
              try {
                guard(`provider.${String(property)}`);
              } catch (refusal) {
                // Effect methods return promises (they reach another system): the refusal is a rejection too.
                return Promise.reject(refusal);
              }
              return call.apply(object, parameters);
            }
          : call.bind(object);
        wrapped.set(property, method);
      }
      return method;
    },
  }) as Client;
}

export { guardedProvider };
