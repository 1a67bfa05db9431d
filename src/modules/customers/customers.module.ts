import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { AddressSchema } from './customers.address.js';
import { figuresListener } from './customers.figures.js';
import type {
  CustomerLoginsTable,
  CustomerPasswordResetsTable,
  CustomerSessionsTable,
} from './customers.logins.tables.js';
import { createOrderCustomers, type OrderCustomers } from './customers.orders.js';
import { createCustomerPrivacy, type CustomerPrivacy } from './customers.privacy.js';
import { customerRoutes } from './customers.routes.js';
import { CustomerListSchema, CustomerSchema } from './customers.schemas.js';
import { createCustomerService, type CustomerService } from './customers.service.js';
import * as customerLogins from './migrations/0040_customer_logins.js';

/**
 * Customers: profiles with figures that follow their orders, the customer an order is for, and a
 * customer's privacy export and erasure. A customer's orders are listed by the orders module. The
 * storefront login a customer may have (its password hash, sessions and resets) is kept here, so
 * the export and erasure reach it; the shoppers module signs shoppers up and in over it.
 */

const PERMISSIONS = ['read:customers', 'write:customers'] as const;
const EVENTS = ['customer.created', 'customer.updated', 'customer.deleted', 'customer.redacted'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    customers: CustomerService;
    /** A customer's data export and erasure (GDPR articles 15 and 17). */
    customerPrivacy: CustomerPrivacy;
    /** Finds or creates the customer an order is for, in the order's transaction. */
    orderCustomers: OrderCustomers;
  }
}
declare module '../../db/schema.js' {
  interface Database {
    customer_logins: CustomerLoginsTable;
    customer_sessions: CustomerSessionsTable;
    customer_password_resets: CustomerPasswordResetsTable;
  }
}

export default defineModule({
  name: 'customers',
  position: 50,
  tags: [
    {
      name: 'Customers',
      description: 'Profiles with exact order figures, their orders, a privacy export and erasure',
    },
  ],
  permissions: PERMISSIONS,
  events: [{ types: EVENTS, object: CustomerSchema }],
  operationIds: {
    'GET /v1/customers': 'listCustomers',
    'POST /v1/customers': 'createCustomer',
    'GET /v1/customers/:id': 'getCustomer',
    'PATCH /v1/customers/:id': 'updateCustomer',
    'DELETE /v1/customers/:id': 'deleteCustomer',
    'GET /v1/customers/:id/export': 'exportCustomerData',
    'POST /v1/customers/:id/redact': 'redactCustomer',
  },
  // A customer's addresses and an order's shipping address are one object.
  components: () => ({
    Address: AddressSchema,
    Customer: CustomerSchema,
    CustomerList: CustomerListSchema,
  }),
  migrations: { '0040_customer_logins': customerLogins },
  versionChanges: {
    '2027-01-20': [
      {
        description:
          'A customer’s export (`GET /customers/{id}/export`) gains `login`: whether it has a storefront login, since when and its live sessions.',
        toPrevious: {
          customer_export: (body) => Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'login')),
        },
      },
    ],
  },
  needs: ['events', 'analyticsRollups', 'audit'],
  services: (deps) => ({
    customers: createCustomerService(deps),
    customerPrivacy: createCustomerPrivacy(deps),
    orderCustomers: createOrderCustomers(deps),
  }),
  // Order and refund events move the customer's orders_count, total_spent and last_order_at.
  effects: () => [figuresListener()],
  routes: [{ plugin: customerRoutes }],
});
