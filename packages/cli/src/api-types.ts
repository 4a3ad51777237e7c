// Generated from the API's OpenAPI document by `pnpm --filter @iot/cli generate`: do not edit.
export interface paths {
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Central node state, database state and attached adapters */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in: a bearer token for the other endpoints */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List products */
        get: operations["listProducts"];
        put?: never;
        /** Create a product */
        post: operations["createProducts"];
        /** Delete products (REFERENCED_ERROR while they have devices or groups) */
        delete: operations["deleteProducts"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/products/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Product detail */
        get: operations["getProducts"];
        /** Edit a product */
        put: operations["updateProducts"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List devices (Form 2 lists gateways too, as deviceType 1) */
        get: operations["listDevices"];
        put?: never;
        /** Create a device (every creation rule of the spec applies) */
        post: operations["createDevices"];
        /** Delete devices, gateways too (REFERENCED_ERROR while a device has children or a gateway has devices) */
        delete: operations["deleteDevices"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Device detail */
        get: operations["getDevices"];
        /** Edit a device (the creation rules apply again; blocking or new credentials end its sessions) */
        put: operations["updateDevices"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Uplink messages of a device */
        get: operations["listDevicesEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}/connect_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Connect logs of a device */
        get: operations["listDevicesConnectLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}/control_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commands sent to a device */
        get: operations["listDevicesControlLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/gateways": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List gateways */
        get: operations["listGateways"];
        put?: never;
        /** Create a gateway */
        post: operations["createGateways"];
        /** Delete gateways (REFERENCED_ERROR while devices are under them) */
        delete: operations["deleteGateways"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/gateways/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Gateway detail */
        get: operations["getGateways"];
        /** Edit a gateway */
        put: operations["updateGateways"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/gateways/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Uplink messages of a gateway and those it relayed */
        get: operations["listGatewaysEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/gateways/{id}/control_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commands sent to a gateway, as gateway control logs (payload an object) */
        get: operations["listGatewaysControlLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List groups */
        get: operations["listGroups"];
        put?: never;
        /** Create a group of one product's devices */
        post: operations["createGroups"];
        /** Delete groups (REFERENCED_ERROR while they have member devices) */
        delete: operations["deleteGroups"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Group detail */
        get: operations["getGroups"];
        /** Edit a group (its productID cannot change) */
        put: operations["updateGroups"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{id}/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Member devices of a group */
        get: operations["listGroupsDevices"];
        put?: never;
        /** Add devices of the group's product to a group; answers the member list */
        post: operations["createGroupsDevices"];
        /** Remove devices from a group */
        delete: operations["deleteGroupsDevices"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/broker_select/groups/{id}/not_joined_devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Devices of the group's product not in the group, for a select box */
        get: operations["listBrokerSelectGroupsNotJoinedDevices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{id}/lora-multicast": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A group's LoRaWAN multicast session */
        get: operations["listGroupsLoraMulticast"];
        /** Provision or replace a LoRa group's multicast session (McAddr, McNwkSKey, McAppSKey) */
        put: operations["updateGroupsLoraMulticast"];
        post?: never;
        /** End a group's LoRaWAN multicast session */
        delete: operations["deleteGroupsLoraMulticast"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_connect_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Connect logs of every device */
        get: operations["listDeviceConnectLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Uplink messages of every device */
        get: operations["listDeviceEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_control_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commands sent to every device */
        get: operations["listDeviceControlLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a command to a device */
        post: operations["publishToDevice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/group_publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a command to every device of a group */
        post: operations["publishToGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/applications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List application keys (admins) */
        get: operations["listApplications"];
        put?: never;
        /** Create an application key; its appToken is shown only in this answer */
        post: operations["createApplications"];
        /** Delete application keys; they stop working at once */
        delete: operations["deleteApplications"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/applications/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Application key detail (admins) */
        get: operations["getApplications"];
        /** Edit an application key (name, role, description, enable, expiresAt) */
        put: operations["updateApplications"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tenants (service administrator) */
        get: operations["listTenants"];
        put?: never;
        /** Create a tenant (service administrator), optionally with resource limits (0 or omitted: unlimited); add its users with POST /users and its tenantID */
        post: operations["createTenants"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tenant detail with its resource limits (service administrator) */
        get: operations["getTenants"];
        /** Edit a tenant (service administrator): its name and resource limits maxDevices, maxConnections, maxUplinkRate (0 or null: unlimited); a new uplink rate reaches the adapters at once */
        put: operations["updateTenants"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the tenant's users (admins) */
        get: operations["listUsers"];
        put?: never;
        /** Create a user (admins; the service administrator may name any tenantID) */
        post: operations["createUsers"];
        /** Delete users (not yourself, not the service administrator) */
        delete: operations["deleteUsers"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** User detail (admins) */
        get: operations["getUsers"];
        /** Edit a user: role, email, password, enable */
        put: operations["updateUsers"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/certs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List certificates */
        get: operations["listCerts"];
        put?: never;
        /** Issue a certificate (ECDSA P-256, CN <tenantID>:<suffix>) signed by the service CA */
        post: operations["createCerts"];
        /** Delete certificates (REFERENCED_ERROR while bound to devices) */
        delete: operations["deleteCerts"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/certs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Certificate detail with cert, key and root PEM texts (no key for viewers) */
        get: operations["getCerts"];
        /** Edit a certificate's name and enable; disabling ends the sessions of its devices */
        put: operations["updateCerts"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List publish/subscribe policies */
        get: operations["listPolicies"];
        put?: never;
        /** Create a policy (topic is an MQTT filter relative to the device) */
        post: operations["createPolicies"];
        /** Delete policies (REFERENCED_ERROR while bound to devices) */
        delete: operations["deletePolicies"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Policy detail */
        get: operations["getPolicies"];
        /** Edit a policy; live devices bound to it get the new rule at once */
        put: operations["updatePolicies"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/policies/{id}/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Devices bound to a policy */
        get: operations["listPoliciesDevices"];
        put?: never;
        /** Bind devices to a policy; answers the bound devices */
        post: operations["createPoliciesDevices"];
        /** Unbind devices from a policy */
        delete: operations["deletePoliciesDevices"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/broker_select/policies/{id}/not_joined_devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Devices not bound to the policy yet */
        get: operations["listBrokerSelectPoliciesNotJoinedDevices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Policies bound to a device */
        get: operations["listDevicesPolicies"];
        put?: never;
        /** Bind policies to a device; answers the device's policies */
        post: operations["createDevicesPolicies"];
        /** Unbind policies from a device */
        delete: operations["deleteDevicesPolicies"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/broker_select/devices/{id}/not_joined_policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Policies the device can still be bound to */
        get: operations["listBrokerSelectDevicesNotJoinedPolicies"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Proxy subscriptions of a device */
        get: operations["listDevicesSubscriptions"];
        put?: never;
        /** Subscribe a device to a topic filter (DATA_EXISTED for a topic it has); applies at once to a live device */
        post: operations["createDevicesSubscriptions"];
        /** Remove proxy subscriptions of a device */
        delete: operations["deleteDevicesSubscriptions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices/{id}/retained": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Retained messages of a device (newest first): its desired state and its last reported values */
        get: operations["listDevicesRetained"];
        put?: never;
        post?: never;
        /** Clear a device's retained message on a topic (of one direction, or both); applies to a live device */
        delete: operations["deleteDevicesRetained"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/history_alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Historical alerts, optionally of one device (deviceID or deviceIntID) and open or closed */
        get: operations["listHistoryAlerts"];
        put?: never;
        post?: never;
        /** Delete historical alerts */
        delete: operations["deleteHistoryAlerts"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{id}/control_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commands sent to a group */
        get: operations["listGroupsControlLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/data_points": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List data points, optionally of one product */
        get: operations["listDataPoints"];
        put?: never;
        /** Create a data point, or a data stream when the body has streamName */
        post: operations["createDataPoints"];
        /** Delete data points only (REFERENCED_ERROR while a stream or metric uses one); streams: DELETE /data_streams */
        delete: operations["deleteDataPoints"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/data_points/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Data point detail */
        get: operations["getDataPoints"];
        /** Edit a data point, or the data stream {id} when the body has streamName */
        put: operations["updateDataPoints"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/data_streams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List data streams, optionally of one product */
        get: operations["listDataStreams"];
        put?: never;
        /** Create a data stream (types 3 and 4 only for products with a gateway) */
        post: operations["createDataStreams"];
        /** Delete data streams (REFERENCED_ERROR while a metric uses one) */
        delete: operations["deleteDataStreams"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/data_streams/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Data stream detail with its data points' ids and names */
        get: operations["getDataStreams"];
        /** Edit a data stream (its product cannot change) */
        put: operations["updateDataStreams"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List metrics, optionally of one product */
        get: operations["listMetrics"];
        put?: never;
        /** Create a formula (1) or aggregate (2) metric of a numeric data point */
        post: operations["createMetrics"];
        /** Delete metrics */
        delete: operations["deleteMetrics"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/metrics/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Metric detail */
        get: operations["getMetrics"];
        /** Edit a metric (its product is fixed) */
        put: operations["updateMetrics"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/product_resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List product resources, optionally of one product */
        get: operations["listProductResources"];
        put?: never;
        /** Bind a code to a data point of a product */
        post: operations["createProductResources"];
        /** Delete product resources */
        delete: operations["deleteProductResources"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/app_templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List app templates, optionally of one product */
        get: operations["listAppTemplates"];
        put?: never;
        /** Create an app template of a product (productID or productIntID) */
        post: operations["createAppTemplates"];
        /** Delete app templates */
        delete: operations["deleteAppTemplates"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/app_templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** App template detail */
        get: operations["getAppTemplates"];
        /** Edit an app template (its product is fixed) */
        put: operations["updateAppTemplates"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_consoles/{deviceIntID}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The device product's app templates with the device's current values */
        get: operations["getDeviceConsoles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/original_data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Original data of each numeric reported data point of a device */
        get: operations["listOriginalData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/metrics_data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The metrics of a device's product with their data for the device */
        get: operations["listMetricsData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/task_status/{taskID}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Status, progress and result of a task */
        get: operations["getTaskStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_schedule_publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List device schedules with their next run and last result */
        get: operations["listDeviceSchedulePublish"];
        put?: never;
        /** Schedule a command to a device (once, every N minutes, or by cron) */
        post: operations["createDeviceSchedulePublish"];
        /** Delete device schedules */
        delete: operations["deleteDeviceSchedulePublish"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/group_schedule_publish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List group schedules with their next run and last result */
        get: operations["listGroupSchedulePublish"];
        put?: never;
        /** Schedule a command to every device of a group */
        post: operations["createGroupSchedulePublish"];
        /** Delete group schedules */
        delete: operations["deleteGroupSchedulePublish"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/device_schedule_publish/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A device schedule with its next run and last result */
        get: operations["getDeviceSchedulePublish"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/group_schedule_publish/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A group schedule with its next run and last result */
        get: operations["getGroupSchedulePublish"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices_export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the devices (and gateways) matching the device list's filters as CSV, in a task */
        get: operations["listDevicesExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices_export/{taskID}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download the CSV of a finished export task */
        get: operations["listDevicesExportFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/devices_import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import devices from a CSV file (multipart `file` or text/csv body) in a task; bad rows are reported */
        post: operations["createDevicesImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/firmwares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List firmware packages, newest first */
        get: operations["listFirmwares"];
        put?: never;
        /** Upload a firmware package of an LwM2M product (its size and SHA-256 are computed, and checked) */
        post: operations["createFirmwares"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/firmwares/{firmwareID}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Firmware package detail */
        get: operations["getFirmwares"];
        put?: never;
        post?: never;
        /** Delete a firmware package and its file */
        delete: operations["deleteFirmwares"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/firmwares/{firmwareID}/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Update the firmware of devices (deviceIDs) or of a group's devices (groupID), in a task */
        post: operations["createFirmwaresUpdate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhooks (admins) */
        get: operations["listWebhooks"];
        put?: never;
        /** Create a webhook: url, eventTypes, optional productIDs/deviceIDs, secret (write-only), enabled */
        post: operations["createWebhooks"];
        /** Delete webhooks */
        delete: operations["deleteWebhooks"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Webhook detail (admins); never its secret */
        get: operations["getWebhooks"];
        /** Edit a webhook; enabled 1 clears why it was disabled */
        put: operations["updateWebhooks"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test delivery now and answer what the receiver said */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a webhook's deliveries with their last status */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live events of the caller's tenant (text/event-stream); Last-Event-ID resumes */
        get: operations["streamEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "degraded";
                        nodeId: string;
                        database: string;
                        databaseHealth: {
                            engine: string;
                            ok: boolean;
                            latencyMs: number;
                            error?: string;
                        };
                        replicas?: {
                            name: string;
                            /** @enum {string} */
                            state: "up" | "lagging" | "down";
                            lagSeconds?: number;
                            lagBytes?: number;
                            error?: string;
                        }[];
                        uptimeSeconds: number;
                        adapters: {
                            protocol: number;
                            protocolLabel: string | null;
                            instance: string;
                            version: string;
                            attachedAt: string | null;
                            sessions: number;
                            /** @constant */
                            state: "attached";
                            connectedDevices: number;
                        }[];
                        nodes: {
                            nodeId: string;
                            /** @enum {string} */
                            state: "up" | "gone";
                            apiAddress?: string | null;
                            grpcAddress?: string | null;
                            startedAt: string | null;
                            heartbeatAt?: string | null;
                            stoppedAt?: string | null;
                            adapters: {
                                protocol: number;
                                protocolLabel: string | null;
                                instance: string;
                                version: string;
                                attachedAt: string | null;
                                sessions: number;
                            }[];
                        }[];
                        jobs: string[];
                        brokers: {
                            [key: string]: string;
                        };
                        reconnectingAdapters: {
                            protocol: number;
                            protocolLabel: string | null;
                            instance: string;
                            version: string;
                            attachedAt: string | null;
                            sessions: number;
                            /** @constant */
                            state: "reconnecting";
                            detachedAt: string | null;
                        }[];
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    username?: string;
                    email?: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        token: string;
                        userIntID: number;
                        username: string;
                        tenantID: string;
                        /** @description admin, operator or viewer */
                        role: string;
                        /** @description ISO 8601 */
                        expiresAt: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listProducts: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                productName_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            productID: string;
                            productName: string;
                            description: string | null;
                            userIntID: number;
                            tenantID: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            cloudProtocol: number;
                            cloudProtocolLabel: string | null;
                            deviceCount: number;
                            dataPointCount: number;
                            dataStreamCount: number;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createProducts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productName: string;
                    description?: string | null;
                    cloudProtocol: (1 | 2 | 3 | 4 | 5 | 6 | 7) | ("1" | "2" | "3" | "4" | "5" | "6" | "7");
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        productID: string;
                        productName: string;
                        description: string | null;
                        userIntID: number;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        cloudProtocol: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteProducts: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getProducts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        productID: string;
                        productName: string;
                        description: string | null;
                        userIntID: number;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        cloudProtocol: number;
                        cloudProtocolLabel: string | null;
                        deviceCount: number;
                        dataPointCount: number;
                        dataStreamCount: number;
                        createUser: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateProducts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productName?: string;
                    description?: string | null;
                    cloudProtocol?: (1 | 2 | 3 | 4 | 5 | 6 | 7) | ("1" | "2" | "3" | "4" | "5" | "6" | "7");
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        productID: string;
                        productName: string;
                        description: string | null;
                        userIntID: number;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        cloudProtocol: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevices: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                gateway?: string;
                parentDevice?: string;
                deviceName_like?: string;
                deviceID_like?: string;
                deviceType_like?: "1" | "2" | "3";
                groupID?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceID: string;
                            deviceName: string;
                            deviceUsername: string;
                            token?: string;
                            authType: number;
                            blocked: number;
                            cloudProtocol: number;
                            productID: string;
                            productIntID: number;
                            deviceType: number;
                            upLinkSystem?: number | null;
                            gateway: number | null;
                            parentDevice: number | null;
                            carrier: number | null;
                            physicalNetwork: number | null;
                            deviceStatus: number;
                            IMEI: string | null;
                            IMSI: string | null;
                            autoSub: number | null;
                            modBusIndex: number | null;
                            latitude: number | null;
                            longitude: number | null;
                            /** @description Any JSON value */
                            location: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            lora: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            manufacturer: string | null;
                            serialNumber: string | null;
                            softVersion: string | null;
                            hardwareVersion: string | null;
                            description: string | null;
                            deviceConsoleIP: string | null;
                            deviceConsoleUsername: string | null;
                            deviceConsolePort: number | null;
                            /** @description Any JSON value */
                            metaData: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            scopes: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            certs: number[];
                            tenantID: string;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            productName: string;
                            authTypeLabel: string | null;
                            blockedLabel: string | null;
                            cloudProtocolLabel: string | null;
                            deviceTypeLabel: string | null;
                            deviceStatusLabel: string | null;
                            carrierLabel: string | null;
                            physicalNetworkLabel: string | null;
                            upLinkSystemLabel?: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDevices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productID: string;
                    deviceName: string;
                    deviceType?: (1 | 3) | ("1" | "3");
                    upLinkSystem?: ((1 | 2 | 3) | ("1" | "2" | "3")) | null;
                    gateway?: (number | string) | null;
                    parentDevice?: (number | string) | null;
                    authType?: (1 | 2) | ("1" | "2");
                    deviceID?: string;
                    deviceUsername?: string;
                    token?: string;
                    carrier?: ((1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4")) | null;
                    physicalNetwork?: ((1 | 2 | 3 | 4 | 5 | 6) | ("1" | "2" | "3" | "4" | "5" | "6")) | null;
                    IMEI?: string | null;
                    IMSI?: string | null;
                    autoSub?: ((0 | 1) | ("0" | "1")) | null;
                    modBusIndex?: (number | string) | null;
                    latitude?: (number | string) | null;
                    longitude?: (number | string) | null;
                    location?: unknown;
                    lora?: {
                        [key: string]: unknown;
                    } | null;
                    lwm2mBootstrap?: {
                        securityMode?: ("nosec" | "psk" | "certificate") | null;
                        serverUri?: string | null;
                        lifetime?: number | null;
                        binding?: string | null;
                    } | null;
                    manufacturer?: string | null;
                    serialNumber?: string | null;
                    softVersion?: string | null;
                    hardwareVersion?: string | null;
                    description?: string | null;
                    deviceConsoleIP?: string | null;
                    deviceConsoleUsername?: string | null;
                    deviceConsolePort?: (number | string) | null;
                    metaData?: unknown;
                    scopes?: unknown[] | string | null;
                    certs?: (number | string)[];
                    blocked?: (0 | 1) | ("0" | "1");
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        deviceID: string;
                        deviceName: string;
                        deviceUsername: string;
                        token?: string;
                        authType: number;
                        blocked: number;
                        cloudProtocol: number;
                        productID: string;
                        productIntID: number;
                        deviceType: number;
                        upLinkSystem?: number | null;
                        gateway: number | null;
                        parentDevice: number | null;
                        carrier: number | null;
                        physicalNetwork: number | null;
                        deviceStatus: number;
                        IMEI: string | null;
                        IMSI: string | null;
                        autoSub: number | null;
                        modBusIndex: number | null;
                        latitude: number | null;
                        longitude: number | null;
                        /** @description Any JSON value */
                        location: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        lora: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        manufacturer: string | null;
                        serialNumber: string | null;
                        softVersion: string | null;
                        hardwareVersion: string | null;
                        description: string | null;
                        deviceConsoleIP: string | null;
                        deviceConsoleUsername: string | null;
                        deviceConsolePort: number | null;
                        /** @description Any JSON value */
                        metaData: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        scopes: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        certs: number[];
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDevices: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getDevices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        deviceID: string;
                        deviceName: string;
                        deviceUsername: string;
                        token?: string;
                        authType: number;
                        blocked: number;
                        cloudProtocol: number;
                        productID: string;
                        productIntID: number;
                        deviceType: number;
                        upLinkSystem?: number | null;
                        gateway: number | null;
                        parentDevice: number | null;
                        carrier: number | null;
                        physicalNetwork: number | null;
                        deviceStatus: number;
                        IMEI: string | null;
                        IMSI: string | null;
                        autoSub: number | null;
                        modBusIndex: number | null;
                        latitude: number | null;
                        longitude: number | null;
                        /** @description Any JSON value */
                        location: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        lora: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        manufacturer: string | null;
                        serialNumber: string | null;
                        softVersion: string | null;
                        hardwareVersion: string | null;
                        description: string | null;
                        deviceConsoleIP: string | null;
                        deviceConsoleUsername: string | null;
                        deviceConsolePort: number | null;
                        /** @description Any JSON value */
                        metaData: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        scopes: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        certs: number[];
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        productName: string;
                        authTypeLabel: string | null;
                        blockedLabel: string | null;
                        cloudProtocolLabel: string | null;
                        deviceTypeLabel: string | null;
                        deviceStatusLabel: string | null;
                        carrierLabel: string | null;
                        physicalNetworkLabel: string | null;
                        upLinkSystemLabel?: string | null;
                        gatewayName: string | null;
                        parentDeviceName: string | null;
                        createUser: string | null;
                        clientIP: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        connectedAt: string | null;
                        keepAlive: number | null;
                        /** @description LwM2M bootstrap settings; null members take the deployment's defaults (IOT_LWM2M_BOOTSTRAP_*) */
                        lwm2mBootstrap?: {
                            securityMode: string | null;
                            serverUri: string | null;
                            lifetime: number | null;
                            binding: string | null;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateDevices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productID?: string;
                    deviceName?: string;
                    deviceType?: (1 | 3) | ("1" | "3");
                    upLinkSystem?: ((1 | 2 | 3) | ("1" | "2" | "3")) | null;
                    gateway?: (number | string) | null;
                    parentDevice?: (number | string) | null;
                    authType?: (1 | 2) | ("1" | "2");
                    deviceID?: string;
                    deviceUsername?: string;
                    token?: string;
                    carrier?: ((1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4")) | null;
                    physicalNetwork?: ((1 | 2 | 3 | 4 | 5 | 6) | ("1" | "2" | "3" | "4" | "5" | "6")) | null;
                    IMEI?: string | null;
                    IMSI?: string | null;
                    autoSub?: ((0 | 1) | ("0" | "1")) | null;
                    modBusIndex?: (number | string) | null;
                    latitude?: (number | string) | null;
                    longitude?: (number | string) | null;
                    location?: unknown;
                    lora?: {
                        [key: string]: unknown;
                    } | null;
                    lwm2mBootstrap?: {
                        securityMode?: ("nosec" | "psk" | "certificate") | null;
                        serverUri?: string | null;
                        lifetime?: number | null;
                        binding?: string | null;
                    } | null;
                    manufacturer?: string | null;
                    serialNumber?: string | null;
                    softVersion?: string | null;
                    hardwareVersion?: string | null;
                    description?: string | null;
                    deviceConsoleIP?: string | null;
                    deviceConsoleUsername?: string | null;
                    deviceConsolePort?: (number | string) | null;
                    metaData?: unknown;
                    scopes?: unknown[] | string | null;
                    certs?: (number | string)[];
                    blocked?: (0 | 1) | ("0" | "1");
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        deviceID: string;
                        deviceName: string;
                        deviceUsername: string;
                        token?: string;
                        authType: number;
                        blocked: number;
                        cloudProtocol: number;
                        productID: string;
                        productIntID: number;
                        deviceType: number;
                        upLinkSystem?: number | null;
                        gateway: number | null;
                        parentDevice: number | null;
                        carrier: number | null;
                        physicalNetwork: number | null;
                        deviceStatus: number;
                        IMEI: string | null;
                        IMSI: string | null;
                        autoSub: number | null;
                        modBusIndex: number | null;
                        latitude: number | null;
                        longitude: number | null;
                        /** @description Any JSON value */
                        location: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        lora: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        manufacturer: string | null;
                        serialNumber: string | null;
                        softVersion: string | null;
                        hardwareVersion: string | null;
                        description: string | null;
                        deviceConsoleIP: string | null;
                        deviceConsoleUsername: string | null;
                        deviceConsolePort: number | null;
                        /** @description Any JSON value */
                        metaData: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        scopes: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        certs: number[];
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesEvents: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            IP: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            deviceID: string;
                            deviceName: string;
                            /** @description UTF-8 text, or base64 when the bytes are not UTF-8 */
                            payload: string;
                            topic: string;
                            updateAt: null;
                            /** @description Any JSON value */
                            metadata?: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            msgTime: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesConnectLogs: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            IP: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            deviceID: string | null;
                            deviceName: string | null;
                            keepAlive: number | null;
                            tenantID: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            connectStatus: number;
                            connectStatusLabel: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesControlLogs: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceIntID: number | null;
                            deviceName: string;
                            payload: string;
                            topic: string | null;
                            publishStatus: number;
                            publishStatusLabel: string | null;
                            publishUser: string | null;
                            publishResult: string | null;
                            userIntID: number | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGateways: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                gatewayName_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            gatewayName: string;
                            deviceID: string;
                            deviceUsername: string;
                            token?: string;
                            authType: number;
                            blocked: number;
                            deviceStatus: number;
                            gatewayProtocol: number | null;
                            upLinkNetwork: number | null;
                            upLinkProtocol: number | null;
                            mac: string | null;
                            /** @description Any JSON value */
                            channel: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            productID: string;
                            deviceConsoleIP: string | null;
                            deviceConsolePort: number | null;
                            deviceConsoleUsername: string | null;
                            /** @description Any JSON value */
                            location: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            manufacturer: string | null;
                            serialNumber: string | null;
                            softVersion: string | null;
                            hardwareVersion: string | null;
                            description: string | null;
                            certs: number[];
                            tenantID: string;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            productName: string;
                            deviceCount: number;
                            authTypeLabel: string | null;
                            deviceStatusLabel: string | null;
                            gatewayProtocolLabel: string | null;
                            upLinkNetworkLabel: string | null;
                            upLinkProtocolLabel: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createGateways: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productID: string;
                    gatewayName: string;
                    gatewayProtocol: (1 | 2 | 3 | 4 | 5 | 6 | 7) | ("1" | "2" | "3" | "4" | "5" | "6" | "7");
                    upLinkNetwork?: ((1 | 2 | 3 | 4 | 5) | ("1" | "2" | "3" | "4" | "5")) | null;
                    upLinkProtocol?: ((1 | 2 | 3 | 4 | 5 | 6 | 7) | ("1" | "2" | "3" | "4" | "5" | "6" | "7")) | null;
                    mac?: string | null;
                    authType?: (1 | 2) | ("1" | "2");
                    blocked?: (0 | 1) | ("0" | "1");
                    deviceID?: string;
                    deviceUsername?: string;
                    token?: string;
                    location?: unknown;
                    manufacturer?: string | null;
                    serialNumber?: string | null;
                    softVersion?: string | null;
                    hardwareVersion?: string | null;
                    description?: string | null;
                    deviceConsoleIP?: string | null;
                    deviceConsoleUsername?: string | null;
                    deviceConsolePort?: (number | string) | null;
                    certs?: (number | string)[];
                    channel?: {
                        /** @enum {string} */
                        chntype: "tcp" | "rtu";
                        chnname?: string;
                        tcphost?: string;
                        tcpport?: number | string;
                        ttycom?: string;
                        ttybaud?: number | string;
                        ttydata?: number | string;
                        /**
                         * @default none
                         * @enum {string}
                         */
                        ttypari?: "none" | "even" | "odd";
                        ttystop?: number | string;
                        timeout?: number | string;
                        retries?: number | string;
                        pollInterval?: number | string;
                        /**
                         * @default ABCD
                         * @enum {string}
                         */
                        byteOrder?: "ABCD" | "CDAB" | "BADC" | "DCBA";
                        maxGap?: number | string;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        gatewayName: string;
                        deviceID: string;
                        deviceUsername: string;
                        token?: string;
                        authType: number;
                        blocked: number;
                        deviceStatus: number;
                        gatewayProtocol: number | null;
                        upLinkNetwork: number | null;
                        upLinkProtocol: number | null;
                        mac: string | null;
                        /** @description Any JSON value */
                        channel: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        productID: string;
                        deviceConsoleIP: string | null;
                        deviceConsolePort: number | null;
                        deviceConsoleUsername: string | null;
                        /** @description Any JSON value */
                        location: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        manufacturer: string | null;
                        serialNumber: string | null;
                        softVersion: string | null;
                        hardwareVersion: string | null;
                        description: string | null;
                        certs: number[];
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteGateways: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getGateways: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        gatewayName: string;
                        deviceID: string;
                        deviceUsername: string;
                        token?: string;
                        authType: number;
                        blocked: number;
                        deviceStatus: number;
                        gatewayProtocol: number | null;
                        upLinkNetwork: number | null;
                        upLinkProtocol: number | null;
                        mac: string | null;
                        /** @description Any JSON value */
                        channel: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        productID: string;
                        deviceConsoleIP: string | null;
                        deviceConsolePort: number | null;
                        deviceConsoleUsername: string | null;
                        /** @description Any JSON value */
                        location: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        manufacturer: string | null;
                        serialNumber: string | null;
                        softVersion: string | null;
                        hardwareVersion: string | null;
                        description: string | null;
                        certs: number[];
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        productName: string;
                        deviceCount: number;
                        authTypeLabel: string | null;
                        deviceStatusLabel: string | null;
                        gatewayProtocolLabel: string | null;
                        upLinkNetworkLabel: string | null;
                        upLinkProtocolLabel: string | null;
                        createUser: string | null;
                        clientIP: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        connectedAt: string | null;
                        keepAlive: number | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateGateways: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productID?: string;
                    gatewayName?: string;
                    gatewayProtocol?: (1 | 2 | 3 | 4 | 5 | 6 | 7) | ("1" | "2" | "3" | "4" | "5" | "6" | "7");
                    upLinkNetwork?: ((1 | 2 | 3 | 4 | 5) | ("1" | "2" | "3" | "4" | "5")) | null;
                    upLinkProtocol?: ((1 | 2 | 3 | 4 | 5 | 6 | 7) | ("1" | "2" | "3" | "4" | "5" | "6" | "7")) | null;
                    mac?: string | null;
                    authType?: (1 | 2) | ("1" | "2");
                    blocked?: (0 | 1) | ("0" | "1");
                    deviceID?: string;
                    deviceUsername?: string;
                    token?: string;
                    location?: unknown;
                    manufacturer?: string | null;
                    serialNumber?: string | null;
                    softVersion?: string | null;
                    hardwareVersion?: string | null;
                    description?: string | null;
                    deviceConsoleIP?: string | null;
                    deviceConsoleUsername?: string | null;
                    deviceConsolePort?: (number | string) | null;
                    certs?: (number | string)[];
                    channel?: {
                        /** @enum {string} */
                        chntype: "tcp" | "rtu";
                        chnname?: string;
                        tcphost?: string;
                        tcpport?: number | string;
                        ttycom?: string;
                        ttybaud?: number | string;
                        ttydata?: number | string;
                        /**
                         * @default none
                         * @enum {string}
                         */
                        ttypari?: "none" | "even" | "odd";
                        ttystop?: number | string;
                        timeout?: number | string;
                        retries?: number | string;
                        pollInterval?: number | string;
                        /**
                         * @default ABCD
                         * @enum {string}
                         */
                        byteOrder?: "ABCD" | "CDAB" | "BADC" | "DCBA";
                        maxGap?: number | string;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        gatewayName: string;
                        deviceID: string;
                        deviceUsername: string;
                        token?: string;
                        authType: number;
                        blocked: number;
                        deviceStatus: number;
                        gatewayProtocol: number | null;
                        upLinkNetwork: number | null;
                        upLinkProtocol: number | null;
                        mac: string | null;
                        /** @description Any JSON value */
                        channel: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        productID: string;
                        deviceConsoleIP: string | null;
                        deviceConsolePort: number | null;
                        deviceConsoleUsername: string | null;
                        /** @description Any JSON value */
                        location: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        manufacturer: string | null;
                        serialNumber: string | null;
                        softVersion: string | null;
                        hardwareVersion: string | null;
                        description: string | null;
                        certs: number[];
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGatewaysEvents: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            IP: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            deviceID: string;
                            deviceName: string;
                            /** @description UTF-8 text, or base64 when the bytes are not UTF-8 */
                            payload: string;
                            topic: string;
                            updateAt: null;
                            /** @description Any JSON value */
                            metadata?: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            msgTime: string | null;
                            gatewayName: string;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGatewaysControlLogs: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceIntID: number | null;
                            createUser: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            payload: {
                                [key: string]: unknown;
                            };
                            publishStatus: number;
                            publishResult: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGroups: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                groupName_like?: string;
                groupID_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            groupID: string;
                            groupName: string;
                            description: string | null;
                            productID: string;
                            productName: string;
                            deviceCount: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createGroups: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productID: string;
                    groupName: string;
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        groupID: string;
                        groupName: string;
                        description: string | null;
                        productID: string;
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteGroups: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getGroups: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        groupID: string;
                        groupName: string;
                        description: string | null;
                        productID: string;
                        productName: string;
                        deviceCount: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        createUser: string | null;
                        tenantID: string;
                        userIntID: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateGroups: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    groupName?: string;
                    description?: string | null;
                    productID?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        groupID: string;
                        groupName: string;
                        description: string | null;
                        productID: string;
                        tenantID: string;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGroupsDevices: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceID: string;
                            deviceName: string;
                            deviceUsername: string;
                            token?: string;
                            authType: number;
                            blocked: number;
                            cloudProtocol: number;
                            productID: string;
                            productIntID: number;
                            deviceType: number;
                            upLinkSystem?: number | null;
                            gateway: number | null;
                            parentDevice: number | null;
                            carrier: number | null;
                            physicalNetwork: number | null;
                            deviceStatus: number;
                            IMEI: string | null;
                            IMSI: string | null;
                            autoSub: number | null;
                            modBusIndex: number | null;
                            latitude: number | null;
                            longitude: number | null;
                            /** @description Any JSON value */
                            location: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            lora: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            manufacturer: string | null;
                            serialNumber: string | null;
                            softVersion: string | null;
                            hardwareVersion: string | null;
                            description: string | null;
                            deviceConsoleIP: string | null;
                            deviceConsoleUsername: string | null;
                            deviceConsolePort: number | null;
                            /** @description Any JSON value */
                            metaData: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            scopes: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            certs: number[];
                            tenantID: string;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            productName: string;
                            authTypeLabel: string | null;
                            blockedLabel: string | null;
                            cloudProtocolLabel: string | null;
                            deviceTypeLabel: string | null;
                            deviceStatusLabel: string | null;
                            carrierLabel: string | null;
                            physicalNetworkLabel: string | null;
                            upLinkSystemLabel?: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createGroupsDevices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    ids: (number | string)[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceID: string;
                            deviceName: string;
                            deviceUsername: string;
                            token?: string;
                            authType: number;
                            blocked: number;
                            cloudProtocol: number;
                            productID: string;
                            productIntID: number;
                            deviceType: number;
                            upLinkSystem?: number | null;
                            gateway: number | null;
                            parentDevice: number | null;
                            carrier: number | null;
                            physicalNetwork: number | null;
                            deviceStatus: number;
                            IMEI: string | null;
                            IMSI: string | null;
                            autoSub: number | null;
                            modBusIndex: number | null;
                            latitude: number | null;
                            longitude: number | null;
                            /** @description Any JSON value */
                            location: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            lora: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            manufacturer: string | null;
                            serialNumber: string | null;
                            softVersion: string | null;
                            hardwareVersion: string | null;
                            description: string | null;
                            deviceConsoleIP: string | null;
                            deviceConsoleUsername: string | null;
                            deviceConsolePort: number | null;
                            /** @description Any JSON value */
                            metaData: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            scopes: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            certs: number[];
                            tenantID: string;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            productName: string;
                            authTypeLabel: string | null;
                            blockedLabel: string | null;
                            cloudProtocolLabel: string | null;
                            deviceTypeLabel: string | null;
                            deviceStatusLabel: string | null;
                            carrierLabel: string | null;
                            physicalNetworkLabel: string | null;
                            upLinkSystemLabel?: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteGroupsDevices: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listBrokerSelectGroupsNotJoinedDevices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        label: string;
                        value: number;
                    }[];
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGroupsLoraMulticast: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        groupIntID: number;
                        mcAddr: string;
                        mcNwkSKey?: string;
                        mcAppSKey?: string;
                        /** @description the McFCntDown of the next multicast downlink */
                        mcFCntDown: number;
                        /** @description null: the region's RX2 data rate */
                        dataRate: number | null;
                        /** @description Hz; null: the region's RX2 frequency */
                        frequency: number | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateGroupsLoraMulticast: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    mcAddr: string;
                    mcNwkSKey?: string;
                    mcAppSKey?: string;
                    /** @description the group's McKey (TS005): McNwkSKey and McAppSKey are derived from it */
                    mcKey?: string;
                    mcFCntDown?: number;
                    dataRate?: number | null;
                    frequency?: number | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        groupIntID: number;
                        mcAddr: string;
                        mcNwkSKey?: string;
                        mcAppSKey?: string;
                        /** @description the McFCntDown of the next multicast downlink */
                        mcFCntDown: number;
                        /** @description null: the region's RX2 data rate */
                        dataRate: number | null;
                        /** @description Hz; null: the region's RX2 frequency */
                        frequency: number | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteGroupsLoraMulticast: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDeviceConnectLogs: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                deviceName_like?: string;
                deviceID_like?: string;
                IP_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            IP: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            deviceID: string | null;
                            deviceName: string | null;
                            keepAlive: number | null;
                            tenantID: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            connectStatus: number;
                            connectStatusLabel: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDeviceEvents: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                deviceName_like?: string;
                deviceID_like?: string;
                topic_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            IP: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            deviceID: string;
                            deviceName: string;
                            /** @description UTF-8 text, or base64 when the bytes are not UTF-8 */
                            payload: string;
                            topic: string;
                            updateAt: null;
                            /** @description Any JSON value */
                            metadata?: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            msgTime: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDeviceControlLogs: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                deviceName_like?: string;
                deviceID_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceIntID: number | null;
                            deviceName: string;
                            payload: string;
                            topic: string | null;
                            publishStatus: number;
                            publishStatusLabel: string | null;
                            publishUser: string | null;
                            publishResult: string | null;
                            userIntID: number | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    publishToDevice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    deviceID: string;
                    deviceIntID?: number | string;
                    payload: string;
                    topic?: string;
                    qos?: (0 | 1 | 2) | ("0" | "1" | "2");
                    retain?: (0 | 1) | ("0" | "1");
                    userProperties?: {
                        [key: string]: string | string[];
                    };
                    contentType?: string;
                    payloadFormatIndicator?: (0 | 1) | ("0" | "1");
                    responseTopic?: string;
                    correlationData?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description 1 issued, 3 no acknowledgement needed */
                        publishStatus: string;
                        controlLogIntID: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    publishToGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    groupID: string;
                    groupIntID?: number | string;
                    payload: string;
                    needAck?: (0 | 1) | ("0" | "1");
                    qos?: (0 | 1 | 2) | ("0" | "1" | "2");
                    retain?: (0 | 1) | ("0" | "1");
                    userProperties?: {
                        [key: string]: string | string[];
                    };
                    contentType?: string;
                    payloadFormatIndicator?: (0 | 1) | ("0" | "1");
                    responseTopic?: string;
                    correlationData?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description /task_status/<taskID> */
                        statusUrl: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listApplications: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                appName_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            appID: string;
                            appToken?: string;
                            appName: string;
                            /** @enum {string} */
                            role: "admin" | "operator" | "viewer";
                            description: string | null;
                            enable: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            expiresAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            userIntID: number;
                            tenantID: string;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createApplications: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appName: string;
                    /** @enum {string} */
                    role?: "admin" | "operator" | "viewer";
                    description?: string | null;
                    expiresAt?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appID: string;
                        appToken?: string;
                        appName: string;
                        /** @enum {string} */
                        role: "admin" | "operator" | "viewer";
                        description: string | null;
                        enable: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        expiresAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        userIntID: number;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteApplications: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getApplications: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appID: string;
                        appToken?: string;
                        appName: string;
                        /** @enum {string} */
                        role: "admin" | "operator" | "viewer";
                        description: string | null;
                        enable: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        expiresAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        userIntID: number;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateApplications: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appName?: string;
                    /** @enum {string} */
                    role?: "admin" | "operator" | "viewer";
                    description?: string | null;
                    enable?: (0 | 1) | ("0" | "1");
                    expiresAt?: string | null;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appID: string;
                        appToken?: string;
                        appName: string;
                        /** @enum {string} */
                        role: "admin" | "operator" | "viewer";
                        description: string | null;
                        enable: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        expiresAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        userIntID: number;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listTenants: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                tenantName_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            tenantID: string;
                            tenantName: string;
                            enable: number;
                            maxDevices: number;
                            maxConnections: number;
                            maxUplinkRate: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createTenants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tenantName: string;
                    /** @description Most devices (gateways included) the tenant may hold; 0 or null: unlimited (the default), at most 100000000 */
                    maxDevices?: (number | string) | null;
                    /** @description Most devices of the tenant connected at once; 0 or null: unlimited (the default), at most 100000000 */
                    maxConnections?: (number | string) | null;
                    /** @description Uplink messages per second of the tenant, per adapter process; 0 or null: unlimited (the default), at most 1000000 */
                    maxUplinkRate?: (number | string) | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        tenantID: string;
                        tenantName: string;
                        enable: number;
                        maxDevices: number;
                        maxConnections: number;
                        maxUplinkRate: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getTenants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        tenantID: string;
                        tenantName: string;
                        enable: number;
                        maxDevices: number;
                        maxConnections: number;
                        maxUplinkRate: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateTenants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tenantName?: string;
                    /** @description Most devices (gateways included) the tenant may hold; 0 or null: unlimited (the default), at most 100000000 */
                    maxDevices?: (number | string) | null;
                    /** @description Most devices of the tenant connected at once; 0 or null: unlimited (the default), at most 100000000 */
                    maxConnections?: (number | string) | null;
                    /** @description Uplink messages per second of the tenant, per adapter process; 0 or null: unlimited (the default), at most 1000000 */
                    maxUplinkRate?: (number | string) | null;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        tenantID: string;
                        tenantName: string;
                        enable: number;
                        maxDevices: number;
                        maxConnections: number;
                        maxUplinkRate: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                username_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            username: string;
                            email: string | null;
                            /** @enum {string} */
                            role: "admin" | "operator" | "viewer";
                            enable: number;
                            serviceAdmin: boolean;
                            tenantID: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    username: string;
                    password: string;
                    /** @enum {string} */
                    role: "admin" | "operator" | "viewer";
                    email?: string | null;
                    tenantID?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        username: string;
                        email: string | null;
                        /** @enum {string} */
                        role: "admin" | "operator" | "viewer";
                        enable: number;
                        serviceAdmin: boolean;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteUsers: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getUsers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        username: string;
                        email: string | null;
                        /** @enum {string} */
                        role: "admin" | "operator" | "viewer";
                        enable: number;
                        serviceAdmin: boolean;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateUsers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    username?: string;
                    password?: string;
                    /** @enum {string} */
                    role?: "admin" | "operator" | "viewer";
                    email?: string | null;
                    tenantID?: string;
                    enable?: (0 | 1) | ("0" | "1");
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        username: string;
                        email: string | null;
                        /** @enum {string} */
                        role: "admin" | "operator" | "viewer";
                        enable: number;
                        serviceAdmin: boolean;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listCerts: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                name_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            enable: number;
                            id: number;
                            name: string;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createCerts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    enable: (0 | 1) | ("0" | "1");
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        CN: string;
                        cert: {
                            content: string;
                            fileName: string;
                        };
                        key: {
                            content: string;
                            fileName: string;
                        };
                        root: {
                            content: string;
                            fileName: string;
                        };
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        enable: number;
                        id: number;
                        name: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteCerts: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getCerts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        enable: number;
                        CN: string;
                        cert: string;
                        key?: string;
                        root: string;
                        createUser: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateCerts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    enable?: (0 | 1) | ("0" | "1");
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        CN: string;
                        cert: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        enable: number;
                        id: number;
                        key: string;
                        name: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listPolicies: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                name_like?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            topic: string;
                            access: number;
                            allow: number;
                            description: string | null;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            accessLabel: string | null;
                            allowLabel: string | null;
                            mqtt_acl: {
                                id: number;
                            }[];
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    topic: string;
                    access: (1 | 2 | 3) | ("1" | "2" | "3");
                    allow: (0 | 1) | ("0" | "1");
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        topic: string;
                        access: number;
                        allow: number;
                        description: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deletePolicies: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        topic: string;
                        access: number;
                        allow: number;
                        description: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        accessLabel: string | null;
                        allowLabel: string | null;
                        mqtt_acl: {
                            id: number;
                        }[];
                        createUser: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updatePolicies: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    topic?: string;
                    access?: (1 | 2 | 3) | ("1" | "2" | "3");
                    allow?: (0 | 1) | ("0" | "1");
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        topic: string;
                        access: number;
                        allow: number;
                        description: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listPoliciesDevices: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceID: string;
                            deviceName: string;
                            deviceTypeLabel: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createPoliciesDevices: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    devicesIntID?: (number | string)[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceID: string;
                            deviceName: string;
                            deviceTypeLabel: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deletePoliciesDevices: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listBrokerSelectPoliciesNotJoinedDevices: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                deviceName_like?: string;
                groupName_like?: string;
                productName_like?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deviceName: string;
                            productName: string;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesPolicies: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            topic: string;
                            access: number;
                            allow: number;
                            description: string | null;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            accessLabel: string | null;
                            allowLabel: string | null;
                            mqtt_acl: {
                                id: number;
                            }[];
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDevicesPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    ids: (number | string)[];
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            topic: string;
                            access: number;
                            allow: number;
                            description: string | null;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            accessLabel: string | null;
                            allowLabel: string | null;
                            mqtt_acl: {
                                id: number;
                            }[];
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDevicesPolicies: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listBrokerSelectDevicesNotJoinedPolicies: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            topic: string;
                            access: number;
                            allow: number;
                            description: string | null;
                            userIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            accessLabel: string | null;
                            allowLabel: string | null;
                            mqtt_acl: {
                                id: number;
                            }[];
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesSubscriptions: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            topic: string;
                            /** @enum {string} */
                            qos: "0" | "1" | "2";
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDevicesSubscriptions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    topic: string;
                    qos?: (0 | 1) | ("0" | "1");
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        topic: string;
                        /** @enum {string} */
                        qos: "0" | "1" | "2";
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDevicesSubscriptions: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesRetained: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _order?: string;
                direction?: "command" | "uplink";
                topic?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /**
                             * @description command: the device's desired state; uplink: its last report
                             * @enum {string}
                             */
                            direction: "command" | "uplink";
                            /** @description relative to the device's namespace */
                            topic: string;
                            /** @description UTF-8 text, or base64 when the bytes are not UTF-8 */
                            payload: string;
                            /** @enum {string} */
                            qos: "0" | "1" | "2";
                            /** @description MQTT 5.0 PUBLISH properties kept with it, or null */
                            properties: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description the command that set a retained command; null for an uplink */
                            controlLogIntID: number | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDevicesRetained: {
        parameters: {
            query: {
                topic: string;
                direction?: "command" | "uplink";
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listHistoryAlerts: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                deviceID?: string;
                deviceIntID?: string;
                status?: "open" | "closed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            alertName: string | null;
                            alertContent: string | null;
                            /** @description Any JSON value */
                            alertDetail: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            alertSeverity: number | null;
                            alertSeverityLabel: string | null;
                            alertTimes: number | null;
                            deviceID: string | null;
                            deviceName: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            startTime: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            endTime: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteHistoryAlerts: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGroupsControlLogs: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            groupID: string;
                            groupName: string;
                            payload: string;
                            publishStatus: number;
                            publishStatusLabel: string | null;
                            publishUser: string | null;
                            userIntID: number | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDataPoints: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            dataPointID: string;
                            dataPointName: string;
                            productID: string;
                            pointDataType: number;
                            dataTransType: number;
                            unitName: string | null;
                            unitSymbol: string | null;
                            upperLimit: number | null;
                            lowerLimit: number | null;
                            dataStep: number | null;
                            binarySize: number | null;
                            faultValue: string | null;
                            isDiscard: number | null;
                            isLocationType: number | null;
                            locationType: number | null;
                            /** @description Any JSON value */
                            enum: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            registerAddr: string | null;
                            detail: string | null;
                            productName: string;
                            pointDataTypeLabel: string | null;
                            dataTransTypeLabel: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDataPoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    dataPointName: string;
                    dataPointID: string;
                    pointDataType: (1 | 3 | 4 | 5 | 6 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 21 | 22 | 23 | 24 | 25) | ("1" | "3" | "4" | "5" | "6" | "11" | "12" | "13" | "14" | "15" | "16" | "17" | "18" | "19" | "21" | "22" | "23" | "24" | "25");
                    dataTransType: (1 | 2 | 3) | ("1" | "2" | "3");
                    productIntID?: number | string;
                    productID?: string;
                    unitName?: string | null;
                    unitSymbol?: string | null;
                    upperLimit?: (number | string) | "" | null;
                    lowerLimit?: (number | string) | "" | null;
                    dataStep?: (number | string) | "" | null;
                    enum?: unknown[] | string | null;
                    isLocationType?: (number | string) | "" | null;
                    locationType?: (number | string) | "" | null;
                    binarySize?: (number | string) | "" | null;
                    faultValue?: string | null;
                    isDiscard?: (number | string) | "" | null;
                    registerAddr?: string | null;
                    detail?: string | null;
                } | {
                    productIntID?: number | string;
                    productID?: string;
                    streamName: string;
                    streamType: (1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4");
                    streamDataType: (1 | 2) | ("1" | "2");
                    topic: string;
                    dataPoints?: (number | string)[];
                    detail?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        dataPointID: string;
                        dataPointName: string;
                        productID: string;
                        pointDataType: number;
                        dataTransType: number;
                        unitName: string | null;
                        unitSymbol: string | null;
                        upperLimit: number | null;
                        lowerLimit: number | null;
                        dataStep: number | null;
                        binarySize: number | null;
                        faultValue: string | null;
                        isDiscard: number | null;
                        isLocationType: number | null;
                        locationType: number | null;
                        /** @description Any JSON value */
                        enum: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        registerAddr: string | null;
                        detail: string | null;
                        userIntID: number;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    } | {
                        id: number;
                        productID: string;
                        streamName: string;
                        streamType: number;
                        streamDataType: number;
                        topic: string;
                        dataPoints: number[];
                        detail: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDataPoints: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getDataPoints: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        dataPointID: string;
                        dataPointName: string;
                        productID: string;
                        pointDataType: number;
                        dataTransType: number;
                        unitName: string | null;
                        unitSymbol: string | null;
                        upperLimit: number | null;
                        lowerLimit: number | null;
                        dataStep: number | null;
                        binarySize: number | null;
                        faultValue: string | null;
                        isDiscard: number | null;
                        isLocationType: number | null;
                        locationType: number | null;
                        /** @description Any JSON value */
                        enum: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        registerAddr: string | null;
                        detail: string | null;
                        productName: string;
                        pointDataTypeLabel: string | null;
                        dataTransTypeLabel: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        createUser: string | null;
                        userIntID: number;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateDataPoints: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productIntID?: number | string;
                    productID?: string;
                    unitName?: string | null;
                    unitSymbol?: string | null;
                    upperLimit?: (number | string) | "" | null;
                    lowerLimit?: (number | string) | "" | null;
                    dataStep?: (number | string) | "" | null;
                    enum?: unknown[] | string | null;
                    isLocationType?: (number | string) | "" | null;
                    locationType?: (number | string) | "" | null;
                    binarySize?: (number | string) | "" | null;
                    faultValue?: string | null;
                    isDiscard?: (number | string) | "" | null;
                    registerAddr?: string | null;
                    detail?: string | null;
                    dataPointName?: string;
                    dataPointID?: string;
                    pointDataType?: (1 | 3 | 4 | 5 | 6 | 11 | 12 | 13 | 14 | 15 | 16 | 17 | 18 | 19 | 21 | 22 | 23 | 24 | 25) | ("1" | "3" | "4" | "5" | "6" | "11" | "12" | "13" | "14" | "15" | "16" | "17" | "18" | "19" | "21" | "22" | "23" | "24" | "25");
                    dataTransType?: (1 | 2 | 3) | ("1" | "2" | "3");
                } | {
                    productIntID?: number | string;
                    productID?: string;
                    streamName?: string;
                    streamType?: (1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4");
                    streamDataType?: (1 | 2) | ("1" | "2");
                    topic?: string;
                    dataPoints?: (number | string)[];
                    detail?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        dataPointID: string;
                        dataPointName: string;
                        productID: string;
                        pointDataType: number;
                        dataTransType: number;
                        unitName: string | null;
                        unitSymbol: string | null;
                        upperLimit: number | null;
                        lowerLimit: number | null;
                        dataStep: number | null;
                        binarySize: number | null;
                        faultValue: string | null;
                        isDiscard: number | null;
                        isLocationType: number | null;
                        locationType: number | null;
                        /** @description Any JSON value */
                        enum: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        registerAddr: string | null;
                        detail: string | null;
                        userIntID: number;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    } | {
                        id: number;
                        productID: string;
                        streamName: string;
                        streamType: number;
                        streamDataType: number;
                        topic: string;
                        dataPoints: number[];
                        detail: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDataStreams: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            productName: string;
                            streamDataType: number;
                            streamDataTypeLabel: string | null;
                            streamName: string;
                            streamType: number;
                            streamTypeLabel: string | null;
                            topic: string;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDataStreams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productIntID?: number | string;
                    productID?: string;
                    streamName: string;
                    streamType: (1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4");
                    streamDataType: (1 | 2) | ("1" | "2");
                    topic: string;
                    dataPoints?: (number | string)[];
                    detail?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        productID: string;
                        streamName: string;
                        streamType: number;
                        streamDataType: number;
                        topic: string;
                        dataPoints: number[];
                        detail: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDataStreams: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getDataStreams: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        productID: string;
                        streamName: string;
                        streamType: number;
                        streamDataType: number;
                        topic: string;
                        dataPoints: number[];
                        detail: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        productName: string;
                        streamTypeLabel: string | null;
                        streamDataTypeLabel: string | null;
                        dataPointNames: string[];
                        createUser: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateDataStreams: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    productIntID?: number | string;
                    productID?: string;
                    streamName?: string;
                    streamType?: (1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4");
                    streamDataType?: (1 | 2) | ("1" | "2");
                    topic?: string;
                    dataPoints?: (number | string)[];
                    detail?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        productID: string;
                        streamName: string;
                        streamType: number;
                        streamDataType: number;
                        topic: string;
                        dataPoints: number[];
                        detail: string | null;
                        userIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listMetrics: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            dataPointName: string | null;
                            id: number;
                            metricName: string;
                            metricType: number;
                            metricTypeLabel: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    metricName: string;
                    dataPointIntID: number | string;
                    metricType?: (1 | 2) | ("1" | "2");
                    chartType?: ((1 | 2) | ("1" | "2")) | "" | null;
                    isShow?: (0 | 1) | ("0" | "1");
                    aggregateType?: ((1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4")) | "" | null;
                    expressions?: string | null;
                    expressionsLabel?: string | null;
                    remark?: string | null;
                    productItemIntID?: number | string;
                    dataStreamIntID?: (number | string) | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        aggregateType: number | null;
                        chartType: number | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        dataPointIntID: number | null;
                        expressions: string | null;
                        id: number;
                        isShow: number | null;
                        metricName: string;
                        productItemIntID: number;
                        remark: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteMetrics: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        aggregateType: number | null;
                        chartType: number | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        dataPointIntID: number | null;
                        expressions: string | null;
                        id: number;
                        isShow: number | null;
                        metricName: string;
                        productItemIntID: number;
                        remark: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        metricType: number;
                        expressionsLabel: string | null;
                        dataStreamIntID: number | null;
                        metricTypeLabel: string | null;
                        dataPointName: string | null;
                        aggregateTypeLabel: string | null;
                        aggregateData: string | null;
                        aggregateDataLabel: string | null;
                        chartTypeLabel: string | null;
                        productID: string;
                        createUser: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    metricName?: string;
                    dataPointIntID?: number | string;
                    metricType?: (1 | 2) | ("1" | "2");
                    chartType?: ((1 | 2) | ("1" | "2")) | "" | null;
                    isShow?: (0 | 1) | ("0" | "1");
                    aggregateType?: ((1 | 2 | 3 | 4) | ("1" | "2" | "3" | "4")) | "" | null;
                    expressions?: string | null;
                    expressionsLabel?: string | null;
                    remark?: string | null;
                    productItemIntID?: number | string;
                    dataStreamIntID?: (number | string) | "" | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        aggregateType: number | null;
                        chartType: number | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        dataPointIntID: number | null;
                        expressions: string | null;
                        id: number;
                        isShow: number | null;
                        metricName: string;
                        productItemIntID: number;
                        remark: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        metricType: number;
                        expressionsLabel: string | null;
                        dataStreamIntID: number | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listProductResources: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            codeValue: string;
                            codeValueLabel: string | null;
                            dataPointIntID: number;
                            dataPointName: string | null;
                            itemName: string | null;
                            productItemIntID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createProductResources: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    codeValue: string | number;
                    dataPointIntID: number | string;
                    productIntID: number | string;
                    productItemIntID?: number | string;
                    itemName?: string | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        codeValue: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        dataPointIntID: number;
                        id: number;
                        productItemIntID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteProductResources: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listAppTemplates: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            templateName: string;
                            templateType: number;
                            productID: string;
                            productItemIntID: number;
                            dataPointIntID: number | null;
                            dataStreamIntID: number | null;
                            dataTransType: number | null;
                            topic: string | null;
                            /** @description Any JSON value */
                            enum: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            places: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            instanceID: string | null;
                            itemID: string | null;
                            itemName: string | null;
                            /** @description Any JSON value */
                            itemOperations: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            objectID: string | null;
                            defaultValues: {
                                dataPointID: string;
                                dataPointName: string;
                                /** @description Any JSON value */
                                enum: string | number | boolean | null | unknown[] | {
                                    [key: string]: unknown;
                                };
                                id: number;
                                pointDataType: number;
                                /** @description Any JSON value */
                                value: string | number | boolean | null | unknown[] | {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            templateTypeLabel: string | null;
                            dataPointID: string | null;
                            dataPointName: string | null;
                            dataStreamName: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createAppTemplates: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    templateName: string;
                    templateType: 1 | "1";
                    productID?: string;
                    productIntID?: number | string;
                    productItemIntID?: number | string;
                    dataPointIntID?: (number | string) | "" | null;
                    dataStreamIntID?: (number | string) | "" | null;
                    dataTransType?: ((1 | 2 | 3) | ("1" | "2" | "3")) | "" | null;
                    topic?: string | null;
                    enum?: unknown[] | string | null;
                    /** @description Two integers; must be an array of two integers */
                    places: number[];
                    instanceID?: (string | number) | null;
                    itemID?: (string | number) | null;
                    itemName?: string | null;
                    itemOperations?: string | string[] | null;
                    objectID?: (string | number) | null;
                    defaultValues?: {
                        id: number | string;
                        value?: string | number | boolean | null;
                    }[] | null;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        templateName: string;
                        templateType: number;
                        productID: string;
                        productItemIntID: number;
                        dataPointIntID: number | null;
                        dataStreamIntID: number | null;
                        dataTransType: number | null;
                        topic: string | null;
                        /** @description Any JSON value */
                        enum: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        places: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        instanceID: string | null;
                        itemID: string | null;
                        itemName: string | null;
                        /** @description Any JSON value */
                        itemOperations: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        objectID: string | null;
                        defaultValues: {
                            dataPointID: string;
                            dataPointName: string;
                            /** @description Any JSON value */
                            enum: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            id: number;
                            pointDataType: number;
                            /** @description Any JSON value */
                            value: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                        }[];
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteAppTemplates: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getAppTemplates: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        templateName: string;
                        templateType: number;
                        productID: string;
                        productItemIntID: number;
                        dataPointIntID: number | null;
                        dataStreamIntID: number | null;
                        dataTransType: number | null;
                        topic: string | null;
                        /** @description Any JSON value */
                        enum: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        places: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        instanceID: string | null;
                        itemID: string | null;
                        itemName: string | null;
                        /** @description Any JSON value */
                        itemOperations: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        objectID: string | null;
                        defaultValues: {
                            dataPointID: string;
                            dataPointName: string;
                            /** @description Any JSON value */
                            enum: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            id: number;
                            pointDataType: number;
                            /** @description Any JSON value */
                            value: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                        }[];
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        templateTypeLabel: string | null;
                        dataPointID: string | null;
                        dataPointName: string | null;
                        dataStreamName: string | null;
                        createUser: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateAppTemplates: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    templateName?: string;
                    templateType?: 1 | "1";
                    productID?: string;
                    productIntID?: number | string;
                    productItemIntID?: number | string;
                    dataPointIntID?: (number | string) | "" | null;
                    dataStreamIntID?: (number | string) | "" | null;
                    dataTransType?: ((1 | 2 | 3) | ("1" | "2" | "3")) | "" | null;
                    topic?: string | null;
                    enum?: unknown[] | string | null;
                    /** @description Two integers; must be an array of two integers */
                    places: number[];
                    instanceID?: (string | number) | null;
                    itemID?: (string | number) | null;
                    itemName?: string | null;
                    itemOperations?: string | string[] | null;
                    objectID?: (string | number) | null;
                    defaultValues?: {
                        id: number | string;
                        value?: string | number | boolean | null;
                    }[] | null;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        templateName: string;
                        templateType: number;
                        productID: string;
                        productItemIntID: number;
                        dataPointIntID: number | null;
                        dataStreamIntID: number | null;
                        dataTransType: number | null;
                        topic: string | null;
                        /** @description Any JSON value */
                        enum: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        /** @description Any JSON value */
                        places: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        instanceID: string | null;
                        itemID: string | null;
                        itemName: string | null;
                        /** @description Any JSON value */
                        itemOperations: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                        objectID: string | null;
                        defaultValues: {
                            dataPointID: string;
                            dataPointName: string;
                            /** @description Any JSON value */
                            enum: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            id: number;
                            pointDataType: number;
                            /** @description Any JSON value */
                            value: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                        }[];
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getDeviceConsoles: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path: {
                deviceIntID: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            templateName: string;
                            templateType: number;
                            productID: string;
                            productItemIntID: number;
                            dataPointIntID: number | null;
                            dataStreamIntID: number | null;
                            dataTransType: number | null;
                            topic: string | null;
                            /** @description Any JSON value */
                            enum: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            /** @description Any JSON value */
                            places: string | number | boolean | null | unknown[] | {
                                [key: string]: unknown;
                            };
                            instanceID: string | null;
                            defaultValues: {
                                dataPointID: string;
                                dataPointName: string;
                                /** @description Any JSON value */
                                enum: string | number | boolean | null | unknown[] | {
                                    [key: string]: unknown;
                                };
                                id: number;
                                pointDataType: number;
                                /** @description Any JSON value */
                                value: string | number | boolean | null | unknown[] | {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            templateTypeLabel: string | null;
                            dataPointID: string | null;
                            dataPointName: string | null;
                            dataStreamName: string | null;
                            value: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listOriginalData: {
        parameters: {
            query: {
                deviceID: string;
                metricType?: "1" | "2";
                time_unit?: "hour" | "day" | "week" | "month";
                start_time?: string;
                end_time?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        dataPointIntID: number;
                        dataPointName: string;
                        originalData: {
                            time: (string | null)[];
                            value: number[];
                        };
                    }[];
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listMetricsData: {
        parameters: {
            query: {
                deviceID: string;
                metricType?: "1" | "2";
                time_unit?: "minute" | "hour" | "day" | "week" | "month";
                start_time?: string;
                end_time?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        aggregateType: number | null;
                        chartType: number | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        dataPointIntID: number | null;
                        expressions: string | null;
                        id: number;
                        isShow: number | null;
                        metricName: string;
                        productItemIntID: number;
                        remark: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        metricType: number;
                        expressionsLabel: string | null;
                        dataStreamIntID: number | null;
                        metricTypeLabel: string | null;
                        dataPointName: string | null;
                        aggregateTypeLabel: string | null;
                        aggregateData: string | null;
                        aggregateDataLabel: string | null;
                        chartTypeLabel: string | null;
                        productID: string;
                        createUser: string | null;
                        metricData: {
                            time: (string | null)[];
                            value: number[];
                        };
                    }[];
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getTaskStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskID: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description 1 waiting, 2 running, 3 success, 4 failed */
                        status: number;
                        progress: number;
                        message: string | null;
                        taskID: string;
                        /** @description Any JSON value */
                        result: string | number | boolean | null | unknown[] | {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDeviceSchedulePublish: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            scheduleName: string;
                            scheduleType: number;
                            IntervalMinute: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            crontabTime: string | null;
                            cronExpression: string | null;
                            payload: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            nextRunAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            lastRunAt: string | null;
                            lastResult: ({
                                error: string;
                            } | {
                                taskID: string;
                                statusUrl: string;
                                status: number | null;
                            } | {
                                controlLogIntID: number;
                                publishStatus: string | null;
                            }) | null;
                            createUser: string | null;
                            userIntID: number | null;
                            tenantID: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            deviceIntID: number;
                            deviceID: string | null;
                            deviceName: string | null;
                            topic: string | null;
                            qos: number;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDeviceSchedulePublish: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    deviceID: string;
                    deviceIntID?: number | string;
                    payload: string;
                    topic?: string;
                    qos?: (0 | 1 | 2) | ("0" | "1" | "2");
                    scheduleName: string;
                    scheduleType: (0 | 1 | 2) | ("0" | "1" | "2");
                    IntervalMinute?: number | string;
                    crontabTime?: string;
                    cronExpression?: string;
                };
            };
        };
        responses: {
            /** @description Done, empty body */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteDeviceSchedulePublish: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listGroupSchedulePublish: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            scheduleName: string;
                            scheduleType: number;
                            IntervalMinute: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            crontabTime: string | null;
                            cronExpression: string | null;
                            payload: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            nextRunAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            lastRunAt: string | null;
                            lastResult: ({
                                error: string;
                            } | {
                                taskID: string;
                                statusUrl: string;
                                status: number | null;
                            } | {
                                controlLogIntID: number;
                                publishStatus: string | null;
                            }) | null;
                            createUser: string | null;
                            userIntID: number | null;
                            tenantID: string;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            groupIntID: number | null;
                            groupID: string | null;
                            groupName: string | null;
                            needAck: number;
                            qos: number;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createGroupSchedulePublish: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    groupID: string;
                    groupIntID?: number | string;
                    payload: string;
                    needAck?: (0 | 1) | ("0" | "1");
                    qos?: (0 | 1 | 2) | ("0" | "1" | "2");
                    scheduleName: string;
                    scheduleType: (0 | 1 | 2) | ("0" | "1" | "2");
                    IntervalMinute?: number | string;
                    crontabTime?: string;
                    cronExpression?: string;
                };
            };
        };
        responses: {
            /** @description Done, empty body */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteGroupSchedulePublish: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getDeviceSchedulePublish: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        scheduleName: string;
                        scheduleType: number;
                        IntervalMinute: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        crontabTime: string | null;
                        cronExpression: string | null;
                        payload: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        nextRunAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        lastRunAt: string | null;
                        lastResult: ({
                            error: string;
                        } | {
                            taskID: string;
                            statusUrl: string;
                            status: number | null;
                        } | {
                            controlLogIntID: number;
                            publishStatus: string | null;
                        }) | null;
                        createUser: string | null;
                        userIntID: number | null;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        deviceIntID: number;
                        deviceID: string | null;
                        deviceName: string | null;
                        topic: string | null;
                        qos: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getGroupSchedulePublish: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        scheduleName: string;
                        scheduleType: number;
                        IntervalMinute: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        crontabTime: string | null;
                        cronExpression: string | null;
                        payload: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        nextRunAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        lastRunAt: string | null;
                        lastResult: ({
                            error: string;
                        } | {
                            taskID: string;
                            statusUrl: string;
                            status: number | null;
                        } | {
                            controlLogIntID: number;
                            publishStatus: string | null;
                        }) | null;
                        createUser: string | null;
                        userIntID: number | null;
                        tenantID: string;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        groupIntID: number | null;
                        groupID: string | null;
                        groupName: string | null;
                        needAck: number;
                        qos: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesExport: {
        parameters: {
            query?: {
                gateway?: string;
                parentDevice?: string;
                deviceName_like?: string;
                deviceID_like?: string;
                deviceType_like?: "1" | "2" | "3";
                groupID?: string;
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description /task_status/<taskID> */
                        statusUrl: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listDevicesExportFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskID: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createDevicesImport: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /** @description CSV, a header line then one device a line */
                    file: string;
                };
                "text/csv": string;
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description /task_status/<taskID> */
                        statusUrl: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listFirmwares: {
        parameters: {
            query?: {
                productID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            firmwareID: string;
                            name: string;
                            version: string;
                            productID: string;
                            /** @description bytes */
                            size: number;
                            /** @description SHA-256 of the package, lowercase hex */
                            sha256: string;
                            createAt: number;
                        }[];
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createFirmwares: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    file: string;
                    name: string;
                    version: string;
                    productID: string;
                    sha256?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        firmwareID: string;
                        name: string;
                        version: string;
                        productID: string;
                        /** @description bytes */
                        size: number;
                        /** @description SHA-256 of the package, lowercase hex */
                        sha256: string;
                        createAt: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getFirmwares: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                firmwareID: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        firmwareID: string;
                        name: string;
                        version: string;
                        productID: string;
                        /** @description bytes */
                        size: number;
                        /** @description SHA-256 of the package, lowercase hex */
                        sha256: string;
                        createAt: number;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteFirmwares: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                firmwareID: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createFirmwaresUpdate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                firmwareID: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    method?: "pull" | "push";
                    deviceIDs?: string[];
                    groupID?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description /task_status/<taskID> */
                        statusUrl: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            webhookName: string;
                            url: string;
                            eventTypes: ("uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed")[];
                            productIDs: string[];
                            deviceIDs: string[];
                            enabled: number;
                            disabledReason: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            failingSince: string | null;
                            lastEventID: number;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                            tenantID: string;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    createWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    webhookName: string;
                    url: string;
                    eventTypes: ("uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed")[];
                    productIDs?: string[] | null;
                    deviceIDs?: string[] | null;
                    secret: string;
                    enabled?: (0 | 1) | ("0" | "1");
                };
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        webhookName: string;
                        url: string;
                        eventTypes: ("uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed")[];
                        productIDs: string[];
                        deviceIDs: string[];
                        enabled: number;
                        disabledReason: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        failingSince: string | null;
                        lastEventID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    deleteWebhooks: {
        parameters: {
            query: {
                ids: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done, empty body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    getWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        webhookName: string;
                        url: string;
                        eventTypes: ("uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed")[];
                        productIDs: string[];
                        deviceIDs: string[];
                        enabled: number;
                        disabledReason: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        failingSince: string | null;
                        lastEventID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    updateWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    webhookName?: string;
                    url?: string;
                    eventTypes?: ("uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed")[];
                    productIDs?: string[] | null;
                    deviceIDs?: string[] | null;
                    secret?: string;
                    enabled?: (0 | 1) | ("0" | "1");
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        webhookName: string;
                        url: string;
                        eventTypes: ("uplink" | "decoded" | "online" | "offline" | "command_result" | "alert_opened" | "alert_closed")[];
                        productIDs: string[];
                        deviceIDs: string[];
                        enabled: number;
                        disabledReason: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        failingSince: string | null;
                        lastEventID: number;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        createAt: string | null;
                        /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                        updateAt: string | null;
                        tenantID: string;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveryID: string;
                        delivered: 0 | 1;
                        httpStatus: number | null;
                        error: string | null;
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                _page?: string;
                _limit?: string;
                _sort?: string;
                _order?: string;
                status?: "delivered" | "retrying" | "failed";
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            deliveryID: string;
                            eventID: number | null;
                            eventType: string;
                            deviceID: string | null;
                            /** @enum {string} */
                            status: "delivered" | "retrying" | "failed";
                            attempts: number;
                            httpStatus: number | null;
                            error: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            createAt: string | null;
                            /** @description YYYY-MM-DD HH:MM:SS (UTC) */
                            updateAt: string | null;
                        }[];
                        meta: {
                            count: number;
                            limit: number;
                            page: number;
                        };
                    };
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
    streamEvents: {
        parameters: {
            query?: {
                eventTypes?: string;
                productID?: string;
                deviceID?: string;
                lastEventID?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description FORM_INVALID, DATA_EXISTED, REFERENCED_ERROR, PARAMETER_INVALID or BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description AUTH_FAILED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description PERMISSION_DENIED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
            /** @description DATA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        errorCode: string;
                        message: string;
                        errors?: {
                            [key: string]: string;
                        };
                    };
                };
            };
        };
    };
}
