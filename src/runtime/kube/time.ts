// Kubernetes times on the wire (metav1.Time): RFC 3339 in UTC with whole seconds, as the API server
// stores and compares them. Conditions, Job and Deployment status, Events' first/last times.

export function kubeTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
