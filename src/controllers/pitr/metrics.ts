// The pitr controller's metric, on the manager's registry: how far behind the binlog archive is.
import { Gauge, type Registry } from 'prom-client';

export interface PitrMetrics {
  /** Seconds since the archive last held every transaction of the master (an alert: > 2 × interval + 60). */
  lagSeconds: Gauge<'namespace' | 'cluster'>;
}

const NAME = 'mysql_operator_binlog_archive_lag_seconds';

export function pitrMetrics(registry: Registry): PitrMetrics {
  const lagSeconds =
    (registry.getSingleMetric(NAME) as Gauge<'namespace' | 'cluster'> | undefined) ??
    new Gauge({
      name: NAME,
      help: 'Seconds since the binlog archive last held every transaction of the master',
      labelNames: ['namespace', 'cluster'],
      registers: [registry],
    });
  return { lagSeconds };
}
